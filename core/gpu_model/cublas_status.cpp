#include "gpu_model/cublas_status.h"

namespace blasscope::core {
namespace {

constexpr CublasStatusInfo kStatuses[] = {
    {0, "CUBLAS_STATUS_SUCCESS", "the operation completed"},
    {1, "CUBLAS_STATUS_NOT_INITIALIZED",
     "the cuBLAS handle could not be created: usually no free device memory (another process holds it) or a "
     "broken CUDA context"},
    {3, "CUBLAS_STATUS_ALLOC_FAILED", "cuBLAS could not allocate device memory for its workspace"},
    {7, "CUBLAS_STATUS_INVALID_VALUE", "an argument was invalid (a negative size, a leading dimension too small)"},
    {8, "CUBLAS_STATUS_ARCH_MISMATCH", "the GPU lacks a feature the call needs (a dtype or math mode)"},
    {11, "CUBLAS_STATUS_MAPPING_ERROR", "device memory could not be accessed (a bad texture binding)"},
    {13, "CUBLAS_STATUS_EXECUTION_FAILED",
     "the kernel failed to run, often an earlier asynchronous fault reported only now"},
    {14, "CUBLAS_STATUS_INTERNAL_ERROR", "an internal cuBLAS operation failed (often a failed memory copy or sync)"},
    {15, "CUBLAS_STATUS_NOT_SUPPORTED", "the combination of parameters is not supported (dtype, layout, math mode)"},
    {16, "CUBLAS_STATUS_LICENSE_ERROR", "a licensing problem"},
};

constexpr CublasStatusInfo kUnknown{-1, "CUBLAS_STATUS_UNKNOWN", "a status this BLAScope does not know"};

}  // namespace

const CublasStatusInfo& cublas_status_info(int status) {
  for (const auto& s : kStatuses) {
    if (s.value == status) return s;
  }
  return kUnknown;
}

std::string cublas_status_name(int status) {
  const auto& info = cublas_status_info(status);
  return info.value == -1 ? std::string(info.name) + " (" + std::to_string(status) + ")" : info.name;
}

}  // namespace blasscope::core
