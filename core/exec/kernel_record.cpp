#include "exec/kernel_record.h"

namespace blasscope::core {

using nlohmann::json;

namespace {

template <typename T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json();
}

template <typename T>
std::optional<T> optional_from(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<T>();
}

}  // namespace

std::uint64_t KernelRecord::input_nonfinite() const {
  std::uint64_t total = 0;
  for (const auto& o : operands) {
    if (o.role != "out") total += o.nan + o.inf;
  }
  return total;
}

json to_json(const KernelRecord& r) {
  json operands = json::array();
  for (const auto& o : r.operands) {
    operands.push_back({{"role", o.role},
                        {"tensor", o.tensor},
                        {"dtype", o.dtype},
                        {"shape", o.shape},
                        {"order", o.order},
                        {"ld", o.ld},
                        {"alignment", o.alignment},
                        {"nan", o.nan},
                        {"inf", o.inf}});
  }
  json xerbla = json::array();
  for (const auto& x : r.xerbla) {
    xerbla.push_back({{"routine", x.routine}, {"parameter", x.parameter}, {"meaning", x.meaning}});
  }
  return {{"op", r.op},
          {"op_kind", r.op_kind},
          {"device", r.device},
          {"kernel", r.kernel},
          {"dtype", r.dtype},
          {"m", optional_json(r.m)},
          {"n", optional_json(r.n)},
          {"k", optional_json(r.k)},
          {"operands", operands},
          {"casts", r.casts},
          {"bytes_touched", r.bytes_touched},
          {"seconds_each", r.seconds_each},
          {"seconds", optional_json(r.seconds)},
          {"gflops", optional_json(r.gflops)},
          {"gbytes_per_second", optional_json(r.gbytes_per_second)},
          {"status", r.status},
          {"info", optional_json(r.info)},
          {"xerbla", xerbla},
          {"error_kind", r.error_kind},
          {"error", optional_json(r.error)},
          {"output_nan", r.output_nan},
          {"output_inf", r.output_inf},
          {"cast_overflow", r.cast_overflow}};
}

KernelRecord kernel_record_from_json(const json& j) {
  KernelRecord r;
  r.op = j.at("op").get<std::size_t>();
  r.op_kind = j.at("op_kind").get<std::string>();
  r.device = j.at("device").get<std::string>();
  r.kernel = j.at("kernel").get<std::string>();
  r.dtype = j.at("dtype").get<std::string>();
  r.m = optional_from<std::int64_t>(j, "m");
  r.n = optional_from<std::int64_t>(j, "n");
  r.k = optional_from<std::int64_t>(j, "k");
  for (const auto& o : j.at("operands")) {
    r.operands.push_back({o.at("role"), o.at("tensor"), o.at("dtype"), o.at("shape").get<std::vector<std::uint64_t>>(),
                          o.at("order"), o.at("ld"), o.at("alignment"), o.at("nan"), o.at("inf")});
  }
  r.casts = j.at("casts").get<std::vector<std::string>>();
  r.bytes_touched = j.at("bytes_touched");
  r.seconds_each = j.at("seconds_each").get<std::vector<double>>();
  r.seconds = optional_from<double>(j, "seconds");
  r.gflops = optional_from<double>(j, "gflops");
  r.gbytes_per_second = optional_from<double>(j, "gbytes_per_second");
  r.status = j.at("status");
  r.info = optional_from<int>(j, "info");
  for (const auto& x : j.at("xerbla")) r.xerbla.push_back({x.at("routine"), x.at("parameter"), x.at("meaning")});
  r.error_kind = j.at("error_kind");
  r.error = optional_from<std::string>(j, "error");
  r.output_nan = j.at("output_nan");
  r.output_inf = j.at("output_inf");
  r.cast_overflow = j.at("cast_overflow");
  return r;
}

}  // namespace blasscope::core
