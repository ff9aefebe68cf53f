#pragma once

// Captures: a failing call's inputs as they were before it ran (LAPACK overwrites them),
// written as .npy files beside a workload.json that replays the call with
// `blasscope-cli run`. Only drivers and GEMM argument errors are captured, and only real
// precisions (BLAScope's replay ops run float32/float64). Copies are made only when
// captures are on, and only for LAPACK drivers, whose O(n^3) work dwarfs the O(n^2) copy.
#include <cstddef>
#include <cstdint>

#include "record/call_record.h"

namespace blasscope::preload {

class InputCapture {
 public:
  InputCapture() = default;
  ~InputCapture();
  InputCapture(const InputCapture&) = delete;
  InputCapture& operator=(const InputCapture&) = delete;

  // Whether captures are on for this call's precision.
  static bool enabled(record::Precision precision);
  // --capture all: inputs are kept whatever they hold.
  static bool capturing_all();
  // Keeps a packed column-major copy of a rows x cols matrix stored with leading dimension ld.
  void keep(int slot, const void* data, std::int64_t rows, std::int64_t cols, std::int64_t ld,
            std::size_t element_size);
  // Writes the capture of `call` (a driver: svd, lstsq or dlascl replay) when it failed (or
  // every call is captured); marks the call kCaptured. `op` is the workload op's JSON.
  void write(record::CallRecord& call, bool failed, const char* op_json);

 private:
  struct Matrix {
    void* data = nullptr;
    std::int64_t rows = 0, cols = 0;
    std::size_t element_size = 0;
  };
  Matrix m_inputs[2];        // a, b
  bool m_too_large = false;  // an input alone is over the cap: not copied, counted if the call fails
};

// A GEMM that xerbla rejected: its arguments matter, not its values, so the capture is a
// workload of synthetic tensors of the same shapes, layout and leading dimensions.
void capture_gemm_arguments(record::CallRecord& call);

}  // namespace blasscope::preload
