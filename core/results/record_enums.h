#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tensor/dtype.h"
#include "text/json.h"
#include "workload/workload.h"

namespace blasscope::core {

// How an op ended on one device. Hung: it never returned and the worker was stopped at the
// op's time limit (Crashed: the worker died inside it).
enum class OpStatus { Ok, Failed, Crashed, Skipped, Hung };

// Why an op failed or did not run; None when it ran.
enum class ErrorKind {
  None,
  ShapeMismatch,
  DtypeMismatch,
  UnsupportedDtype,
  MissingInput,  // an earlier op did not make the tensor this one reads
  OutOfMemory,
  IllegalArgument,  // xerbla was called
  LapackFailed,     // INFO > 0
  CublasError,
  CudaError,
  NoGpu,
  IndexOverflow,  // sizes past what 32-bit BLAS integers address
  WorkerCrashed,
  KernelHang,  // the op ran past its time limit and the worker was stopped
};

std::string_view name(OpStatus status);
std::string_view name(ErrorKind kind);  // the finding id it becomes: "shape-mismatch"; "" for None
// The names as std::string, for messages and tables; "" for a dtype that is not known.
template <typename Enum>
std::string text(Enum value) {
  return std::string(name(value));
}
inline std::string text(const std::optional<DType>& dtype) {
  return dtype ? std::string(name(*dtype)) : std::string();
}

std::optional<OpStatus> op_status_from_name(std::string_view name);
std::optional<ErrorKind> error_kind_from_name(std::string_view name);
std::optional<OpKind> op_kind_from_name(std::string_view name);
std::optional<Device> device_from_name(std::string_view name);

// JSON as their names; an unknown name is a json::exception (the event holding it is skipped).
void to_json(nlohmann::json& j, OpStatus value);
void from_json(const nlohmann::json& j, OpStatus& value);
void to_json(nlohmann::json& j, ErrorKind value);
void from_json(const nlohmann::json& j, ErrorKind& value);
void to_json(nlohmann::json& j, OpKind value);
void from_json(const nlohmann::json& j, OpKind& value);
void to_json(nlohmann::json& j, Device value);
void from_json(const nlohmann::json& j, Device& value);
void to_json(nlohmann::json& j, DType value);
void from_json(const nlohmann::json& j, DType& value);
void to_json(nlohmann::json& j, MemoryOrder value);
void from_json(const nlohmann::json& j, MemoryOrder& value);

}  // namespace blasscope::core

// A record's dtype when the kernel never ran is "" in JSON (as it always was), not null.
namespace nlohmann {
template <>
struct adl_serializer<std::optional<blasscope::core::DType>> {
  static void to_json(json& j, const std::optional<blasscope::core::DType>& value) {
    j = value ? std::string(blasscope::core::name(*value)) : std::string();
  }
  static void from_json(const json& j, std::optional<blasscope::core::DType>& value) {
    if (j.is_null() || (j.is_string() && j.get_ref<const std::string&>().empty())) {
      value.reset();
    } else {
      value = j.get<blasscope::core::DType>();
    }
  }
};
}  // namespace nlohmann
