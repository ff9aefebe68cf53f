#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tensor/dtype.h"

namespace blasscope::core {

// A tensor read from a .npy file, an .npz member or a safetensors tensor.
struct FileTensorSource {
  std::string path;  // absolute, resolved against the workload file's folder
  std::string key;   // member / tensor name; empty for .npy or single-tensor files
};

enum class FillKind { Random, Uniform, Zeros, Ones, Range, Constant };

// A tensor BLAScope makes: seeded values, injected NaN/Inf, chosen alignment and padding.
struct SyntheticTensorSource {
  std::vector<std::uint64_t> shape;
  DType dtype = DType::Float64;
  MemoryOrder order = MemoryOrder::C;
  std::uint64_t seed = 0;
  FillKind fill = FillKind::Random;
  double constant = 0;
  std::uint64_t nan = 0;
  std::uint64_t inf = 0;
  std::uint64_t misalign = 0;  // bytes from a 64-byte boundary
  std::uint64_t ld = 0;        // 0: dense
};

struct TensorSpec {
  std::string name;
  std::variant<FileTensorSource, SyntheticTensorSource> source;
};

// Svd, Lstsq and the factorisations (Cholesky: POTRF; Lu: GETRF; Solve: GESV; LuSolve: GETRS;
// Eigh: SYEVD or SYEV) run LAPACK; GEMM and DLASCL are BLAScope's instrumented kernels.
enum class OpKind { Gemm, Dlascl, Svd, Lstsq, Cast, Cholesky, Lu, Solve, Eigh, Gemv, Syrk, Trsm, LuSolve };
// An op that calls a LAPACK routine on the CPU (no GPU version): svd, lstsq, the factorisations.
bool is_lapack_op(OpKind kind);
// gemv, syrk and trsm: one CBLAS level 2/3 call, as a recorded one was made (replays of captures).
bool is_blas_call_op(OpKind kind);
enum class Device { Cpu, Gpu };
enum class DeviceChoice { Cpu, Gpu, Both };

std::string_view name(OpKind kind);
std::string_view name(Device device);

struct OpSpec {
  OpKind kind = OpKind::Gemm;
  std::size_t index = 0;
  std::string a, b, c;                    // operands (b and c where the op takes them)
  std::string pivots;                     // lu_solve: GETRF's IPIV (1-based row interchanges), an integer vector
  std::string out;                        // name of the result tensor
  bool trans_a = false, trans_b = false;  // lu_solve: trans_a solves A^T X = B (TRANS 'T')
  bool conjugate = false;                 // lu_solve with trans_a: A^H X = B (TRANS 'C'), for complex A
  double alpha = 1, beta = 0;
  std::optional<std::int64_t> lda, ldb, ldc;  // explicit overrides: may be illegal on purpose
  std::optional<std::int64_t> incx, incy;     // gemv: vector strides (0 is illegal, on purpose)
  char side = 'L';                            // trsm: A on the left (L) or right (R) of X
  bool unit_diagonal = false;                 // trsm: DIAG = 'U'
  bool promote = false;
  bool tf32 = false;  // gemm on the GPU: allow TF32 tensor cores for float32
  DeviceChoice device = DeviceChoice::Cpu;
  int repeat = 1;
  char scale_type = 'G';    // dlascl: G, L, U, H
  bool cfrom_norm = false;  // dlascl: cfrom is the max-abs norm of A, as gesdd/gelsd compute it
  double cfrom = 1, cto = 1;
  DType cast_to = DType::Float32;
  std::string
      driver;  // svd: gesdd (default), gesvd; lstsq: gelsd (default), gelsy, gelss, gels; eigh: syevd, syev, syevr
  bool compute_uv = false;        // svd: U and V^T too, as OUT_u and OUT_vt; eigh: eigenvectors, as OUT_v
  char uplo = 'L';                // cholesky, eigh, syrk, trsm: the triangle of A (or C) used (NumPy's default: L)
  std::optional<double> timeout;  // seconds it may run before it is taken for hung
};

// What a built-in scenario is about, and which diagnoses it must produce.
struct ScenarioInfo {
  std::string id;
  std::string title;
  std::string story;
  std::string seed;                   // the seed article example it reproduces, if any
  std::vector<std::string> expected;  // diagnosis ids, in any order
};

struct Workload {
  std::string name;
  std::string description;
  std::optional<std::uint64_t> memory_limit;  // bytes of host memory for tensors and workspaces
  std::optional<double> timeout;              // seconds any op may run (an op's own "timeout" wins)
  std::vector<TensorSpec> tensors;
  std::vector<OpSpec> ops;
  std::string source_path;  // the workload file, or "scenario:ID" for a built-in scenario
  std::optional<ScenarioInfo> scenario;
  // The call of a recording this workload replays (a capture by `blasscope-cli record`): its
  // operands' layout is the call's own, not a finding.
  std::optional<std::uint64_t> recorded_call;
};

}  // namespace blasscope::core
