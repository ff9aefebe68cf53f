#pragma once

namespace blasscope::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitRejected = 3;

inline constexpr const char* kCliUsage = R"(usage: blasscope-cli COMMAND [OPTIONS]

Inspects BLAS/LAPACK workloads and the tensors they read, headless.

commands:
  inspect FILE [--json]   list the tensors in FILE (.npy, .npz, .safetensors; the format is
                          recognised by its magic bytes) with dtype, shape, memory order,
                          alignment and a count of NaN, +/-Inf, zero and subnormal values
      --json              print one JSON object on stdout instead of the table
      --quiet             no progress on stderr

options:
  -h, --help              show this help
  --version               show the version

exit status:
  0  the input was read (findings may still be listed)
  2  usage error
  3  the input was rejected (unreadable, malformed or unsupported); stderr says why
)";

}  // namespace blasscope::app
