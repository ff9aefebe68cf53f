// Must compile: the control for upward_include.cpp, with the same include root.
#include "tensor/host_tensor.h"
#include "text/format.h"
