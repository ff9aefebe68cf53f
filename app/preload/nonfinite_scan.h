#pragma once

// Counting NaN and Inf in contiguous runs of values, read as bits (see count_nonfinite): the
// scan a LAPACK driver's inputs get before every call, vectorised where the CPU allows.
#include <cstddef>
#include <cstdint>

namespace blasscope::preload {

// Adds the NaNs and the Infs among `count` doubles (floats) at `values` to `nans` and `infs`.
void count_nonfinite_run(const double* values, std::size_t count, std::uint64_t& nans, std::uint64_t& infs);
void count_nonfinite_run(const float* values, std::size_t count, std::uint64_t& nans, std::uint64_t& infs);

}  // namespace blasscope::preload
