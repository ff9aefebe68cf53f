#pragma once

#include <hdf5.h>

#include <optional>

#include "io/unread_dtype.h"
#include "tensor/dtype.h"

namespace blasscope::core {

// What an HDF5 dataset's file datatype is to BLAScope: a dtype and byte order it scans, or
// an UnreadDType (strings, vlen, references, opaque, other compounds...) with a reason.
struct Hdf5ElementType {
  DType dtype = DType::UInt8;
  ByteOrder byte_order = ByteOrder::NotApplicable;
  std::optional<UnreadDType> unread;
};

// IEEE floats of 2, 4 or 8 bytes (checked bit by bit: sign, exponent, mantissa positions),
// integers of 1, 2, 4, 8 bytes, h5py's bool (enum over int8 FALSE=0 TRUE=1) and complex
// (compound {r, i} of two equal IEEE floats). Never throws for a valid type id.
Hdf5ElementType map_hdf5_type(hid_t type);

}  // namespace blasscope::core
