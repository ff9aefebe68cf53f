#pragma once

#include <string>

namespace blasscope::core {

// cuBLAS status codes by value (the plugin static_asserts them against cublas_api.h), with
// the name users see and what it means in practice.
struct CublasStatusInfo {
  int value;
  const char* name;
  const char* meaning;
};

const CublasStatusInfo& cublas_status_info(int status);
std::string cublas_status_name(int status);

}  // namespace blasscope::core
