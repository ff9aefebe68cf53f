#include "results/record_enums.h"

#include <array>
#include <utility>

#include "text/json.h"

namespace blasscope::core {

using nlohmann::json;

namespace {

constexpr std::array<std::pair<OpStatus, std::string_view>, 5> kStatusNames{{{OpStatus::Ok, "ok"},
                                                                             {OpStatus::Failed, "failed"},
                                                                             {OpStatus::Crashed, "crashed"},
                                                                             {OpStatus::Skipped, "skipped"},
                                                                             {OpStatus::Hung, "hung"}}};

constexpr std::array<std::pair<ErrorKind, std::string_view>, 14> kErrorKindNames{{
    {ErrorKind::None, ""},
    {ErrorKind::ShapeMismatch, "shape-mismatch"},
    {ErrorKind::DtypeMismatch, "dtype-mismatch"},
    {ErrorKind::UnsupportedDtype, "unsupported-dtype"},
    {ErrorKind::MissingInput, "missing-input"},
    {ErrorKind::OutOfMemory, "out-of-memory"},
    {ErrorKind::IllegalArgument, "illegal-argument"},
    {ErrorKind::LapackFailed, "lapack-failed"},
    {ErrorKind::CublasError, "cublas-error"},
    {ErrorKind::CudaError, "cuda-error"},
    {ErrorKind::NoGpu, "no-gpu"},
    {ErrorKind::IndexOverflow, "index-overflow"},
    {ErrorKind::WorkerCrashed, "worker-crashed"},
    {ErrorKind::KernelHang, "kernel-hang"},
}};

template <typename Enum, std::size_t N>
std::string_view name_in(const std::array<std::pair<Enum, std::string_view>, N>& names, Enum value) {
  for (const auto& [v, n] : names) {
    if (v == value) return n;
  }
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_in(const std::array<std::pair<Enum, std::string_view>, N>& names, std::string_view wanted) {
  for (const auto& [v, n] : names) {
    if (n == wanted) return v;
  }
  return std::nullopt;
}

template <typename Enum>
Enum parse_or_throw(const json& j, std::optional<Enum> (*parse)(std::string_view), const char* what) {
  json_detail::t_refused_value = &j;  // names the field if this throws
  if (!j.is_string()) throw json::type_error::create(302, std::string(what) + " must be a string", &j);
  const auto value = parse(j.get_ref<const std::string&>());
  if (!value)
    throw json::other_error::create(501, "unknown " + std::string(what) + " '" + j.get<std::string>() + "'", &j);
  json_detail::t_refused_value = nullptr;
  return *value;
}

std::optional<DType> dtype_by_name(std::string_view n) {
  return dtype_from_name(n);
}

std::optional<MemoryOrder> order_by_name(std::string_view n) {
  if (n == name(MemoryOrder::C)) return MemoryOrder::C;
  if (n == name(MemoryOrder::Fortran)) return MemoryOrder::Fortran;
  return std::nullopt;
}

}  // namespace

std::string_view name(OpStatus status) {
  return name_in(kStatusNames, status);
}

std::string_view name(ErrorKind kind) {
  return name_in(kErrorKindNames, kind);
}

std::optional<OpStatus> op_status_from_name(std::string_view n) {
  return value_in(kStatusNames, n);
}

std::optional<ErrorKind> error_kind_from_name(std::string_view n) {
  return value_in(kErrorKindNames, n);
}

std::optional<OpKind> op_kind_from_name(std::string_view n) {
  for (OpKind kind :
       {OpKind::Gemm, OpKind::Dlascl, OpKind::Svd, OpKind::Lstsq, OpKind::Cast, OpKind::Cholesky, OpKind::Lu,
        OpKind::Solve, OpKind::Eigh, OpKind::Gemv, OpKind::Syrk, OpKind::Trsm, OpKind::LuSolve}) {
    if (name(kind) == n) return kind;
  }
  return std::nullopt;
}

std::optional<Device> device_from_name(std::string_view n) {
  for (Device device : {Device::Cpu, Device::Gpu}) {
    if (name(device) == n) return device;
  }
  return std::nullopt;
}

void to_json(json& j, OpStatus value) {
  j = name(value);
}
void from_json(const json& j, OpStatus& value) {
  value = parse_or_throw(j, op_status_from_name, "op status");
}
void to_json(json& j, ErrorKind value) {
  j = name(value);
}
void from_json(const json& j, ErrorKind& value) {
  value = parse_or_throw(j, error_kind_from_name, "error kind");
}
void to_json(json& j, OpKind value) {
  j = name(value);
}
void from_json(const json& j, OpKind& value) {
  value = parse_or_throw(j, op_kind_from_name, "op kind");
}
void to_json(json& j, Device value) {
  j = name(value);
}
void from_json(const json& j, Device& value) {
  value = parse_or_throw(j, device_from_name, "device");
}
void to_json(json& j, DType value) {
  j = name(value);
}
void from_json(const json& j, DType& value) {
  value = parse_or_throw(j, dtype_by_name, "dtype");
}
void to_json(json& j, MemoryOrder value) {
  j = name(value);
}
void from_json(const json& j, MemoryOrder& value) {
  value = parse_or_throw(j, order_by_name, "memory order");
}

}  // namespace blasscope::core
