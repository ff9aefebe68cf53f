#pragma once

// Counting NaN and Inf in contiguous runs of values, read as bits (see count_nonfinite): the
// scan a LAPACK driver's inputs get before every call, vectorised where the CPU allows.
#include <cstddef>
#include <cstdint>

namespace blasscope::preload {

// Adds the NaNs and the Infs among `count` doubles (floats) at `values` to `nans` and `infs`,
// with the widest instruction set this CPU has.
void count_nonfinite_run(const double* values, std::size_t count, std::uint64_t& nans, std::uint64_t& infs);
void count_nonfinite_run(const float* values, std::size_t count, std::uint64_t& nans, std::uint64_t& infs);

// Each version on its own, for tests on a CPU that would pick another.
enum class ScanIsa { Plain, Avx2, Avx512 };
bool scan_isa_supported(ScanIsa isa);
void count_nonfinite_run_with(ScanIsa isa, const double* values, std::size_t count, std::uint64_t& nans,
                              std::uint64_t& infs);
void count_nonfinite_run_with(ScanIsa isa, const float* values, std::size_t count, std::uint64_t& nans,
                              std::uint64_t& infs);

}  // namespace blasscope::preload
