// Must not compile: the tensor layer cannot see the exec layer (checked by ctest).
#include "exec/runner.h"
