#include "record/routine_names.h"

#include <unordered_map>

namespace blasscope::record {

std::string routine_name(Routine routine, Precision precision) {
  static const char* const kLetters = "sdcz";
  const bool complex = is_complex(precision);
  const char* base = "?";
  switch (routine) {
    case Routine::Gemm: base = "gemm"; break;
    case Routine::Gemv: base = "gemv"; break;
    case Routine::Syrk: base = "syrk"; break;
    case Routine::Trsm: base = "trsm"; break;
    case Routine::Gesdd: base = "gesdd"; break;
    case Routine::Gesvd: base = "gesvd"; break;
    case Routine::Gelsd: base = "gelsd"; break;
    case Routine::Gelsy: base = "gelsy"; break;
    case Routine::Gelss: base = "gelss"; break;
    case Routine::Gels: base = "gels"; break;
    case Routine::Syevd: base = complex ? "heevd" : "syevd"; break;
    case Routine::Syev: base = complex ? "heev" : "syev"; break;
    case Routine::Gesv: base = "gesv"; break;
    case Routine::Getrf: base = "getrf"; break;
    case Routine::Getrs: base = "getrs"; break;
    case Routine::Potrf: base = "potrf"; break;
    case Routine::Syevr: base = complex ? "heevr" : "syevr"; break;
    case Routine::Geev: base = "geev"; break;
    case Routine::Geqrf: base = "geqrf"; break;
    case Routine::Orgqr: base = complex ? "ungqr" : "orgqr"; break;
    case Routine::Potrs: base = "potrs"; break;
    case Routine::Getri: base = "getri"; break;
    case Routine::Trtrs: base = "trtrs"; break;
    case Routine::Sysv: base = "sysv"; break;
    case Routine::Sytrf: base = "sytrf"; break;
    case Routine::Gees: base = "gees"; break;
    case Routine::Sygvd: base = complex ? "hegvd" : "sygvd"; break;
    case Routine::Sygv: base = complex ? "hegv" : "sygv"; break;
    case Routine::Gges: base = "gges"; break;
    case Routine::Gehrd: base = "gehrd"; break;
    case Routine::Geqp3: base = "geqp3"; break;
    case Routine::Posv: base = "posv"; break;
    case Routine::Hesv: base = "hesv"; break;
    case Routine::Hetrf: base = "hetrf"; break;
    case Routine::Lascl: base = "lascl"; break;
    case Routine::Xerbla: return "xerbla";
    case Routine::CublasCreate: return "cublasCreate_v2";
    case Routine::CublasSgemm: return "cublasSgemm_v2";
    case Routine::CublasDgemm: return "cublasDgemm_v2";
    case Routine::CublasHgemm: return "cublasHgemm";
    case Routine::CublasGemmEx: return "cublasGemmEx";
    case Routine::CublasSgemmStridedBatched: return "cublasSgemmStridedBatched";
    case Routine::CublasDgemmStridedBatched: return "cublasDgemmStridedBatched";
    case Routine::CublasGemmStridedBatchedEx: return "cublasGemmStridedBatchedEx";
    case Routine::CudaMalloc: return "cudaMalloc";
    case Routine::Count: break;
  }
  return std::string(1, kLetters[static_cast<int>(precision) & 3]) + base;
}

std::optional<std::pair<Routine, Precision>> parse_routine_name(const std::string& name) {
  // Built once: reading a million-call session looks a name up per call.
  static const auto* const kByName = [] {
    auto* names = new std::unordered_map<std::string, std::pair<Routine, Precision>>;
    for (std::uint32_t r = 0; r < kRoutineCount; ++r) {
      for (std::uint32_t p = kPrecisionCount; p-- > 0;) {  // S last: GPU routines' names repeat per precision
        const auto routine = static_cast<Routine>(r);
        const auto precision = static_cast<Precision>(p);
        (*names)[routine_name(routine, precision)] = {routine, precision};
      }
    }
    return names;
  }();
  const auto it = kByName->find(name);
  if (it == kByName->end()) return std::nullopt;
  return it->second;
}

const char* precision_dtype(Precision precision, Routine routine) {
  switch (routine) {
    case Routine::CublasDgemm:
    case Routine::CublasDgemmStridedBatched: return "float64";
    case Routine::CublasHgemm: return "float16";
    case Routine::CublasGemmEx:
    case Routine::CublasGemmStridedBatchedEx:
    case Routine::CublasCreate:
    case Routine::CudaMalloc:
    case Routine::Xerbla: return "";
    case Routine::CublasSgemm:
    case Routine::CublasSgemmStridedBatched: return "float32";
    default: return precision_dtype(precision);
  }
}

const char* precision_dtype(Precision precision) {
  switch (precision) {
    case Precision::S: return "float32";
    case Precision::D: return "float64";
    case Precision::C: return "complex64";
    case Precision::Z: break;
  }
  return "complex128";
}

bool is_gpu(Routine routine) {
  return routine >= Routine::CublasCreate && routine < Routine::Count;
}

bool is_cublas_gemm(Routine routine) {
  return is_gpu(routine) && routine != Routine::CublasCreate && routine != Routine::CudaMalloc;
}

bool is_strided_batched(Routine routine) {
  return routine == Routine::CublasSgemmStridedBatched || routine == Routine::CublasDgemmStridedBatched ||
         routine == Routine::CublasGemmStridedBatchedEx;
}

bool has_data_type_argument(Routine routine) {
  return routine == Routine::CublasGemmEx || routine == Routine::CublasGemmStridedBatchedEx;
}

namespace {
// cudaDataType values (library_types.h) and their dtypes.
struct CudaDataType {
  int value;
  const char* dtype;
};
constexpr CudaDataType kCudaDataTypes[] = {{0, "float32"},   {1, "float64"},        {2, "float16"},     {3, "int8"},
                                           {4, "complex64"}, {5, "complex128"},     {6, "complex32"},   {8, "uint8"},
                                           {10, "int32"},    {12, "uint32"},        {14, "bfloat16"},   {16, "int4"},
                                           {18, "uint4"},    {20, "int16"},         {22, "uint16"},     {24, "int64"},
                                           {26, "uint64"},   {28, "float8_e4m3fn"}, {29, "float8_e5m2"}};
}  // namespace

const char* cuda_data_type_dtype(int type) {
  for (const CudaDataType& t : kCudaDataTypes) {
    if (t.value == type) return t.dtype;
  }
  return "";
}

int cuda_data_type_of(std::string_view dtype) {
  for (const CudaDataType& t : kCudaDataTypes) {
    if (dtype == t.dtype) return t.value;
  }
  return -1;
}

const char* call_dtype(const CallRecord& call) {
  if (has_data_type_argument(call.routine) && call.side_uplo) return cuda_data_type_dtype(call.side_uplo - 1);
  return precision_dtype(call.precision, call.routine);
}

bool is_lapack(Routine routine) {
  return routine != Routine::Gemm && routine != Routine::Gemv && routine != Routine::Syrk && routine != Routine::Trsm &&
         routine != Routine::Xerbla && !is_gpu(routine);
}

}  // namespace blasscope::record
