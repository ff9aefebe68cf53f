#include "report/inspect_json.h"

namespace blasscope::core {

using nlohmann::json;

json to_json(const Scalar& value) {
  switch (value.kind) {
    case Scalar::Kind::Signed: return value.i;
    case Scalar::Kind::Unsigned: return value.u;
    case Scalar::Kind::Float: break;
  }
  return value.f;
}

json to_json(const TensorStats& stats) {
  json out = {{"nan", stats.nan},
              {"posinf", stats.posinf},
              {"neginf", stats.neginf},
              {"zero", stats.zero},
              {"subnormal", stats.subnormal},
              {"finite", stats.finite},
              {"min", nullptr},
              {"max", nullptr},
              {"first_nonfinite", nullptr}};
  if (stats.min) out["min"] = to_json(*stats.min);
  if (stats.max) out["max"] = to_json(*stats.max);
  if (stats.first_nonfinite) out["first_nonfinite"] = *stats.first_nonfinite;
  return out;
}

json to_json(const InspectReport& report) {
  json tensors = json::array();
  for (const TensorReport& t : report.tensors) {
    json entry = {{"name", t.info.name},
                  {"dtype", t.info.dtype_name()},
                  {"shape", t.info.shape},
                  {"order", std::string(name(t.info.order))},
                  {"byte_order", std::string(name(t.info.byte_order))},
                  {"nbytes", t.info.nbytes},
                  {"data_offset", t.info.data_offset},
                  {"alignment", t.layout.file_alignment},
                  {"memory_alignment", nullptr},
                  {"contiguous", t.layout.contiguous},
                  {"compressed", t.info.storage.kind == TensorStorage::Kind::Deflated || t.info.storage.filtered},
                  {"stats", nullptr}};
    if (t.layout.memory_alignment) entry["memory_alignment"] = *t.layout.memory_alignment;
    if (t.stats) entry["stats"] = to_json(*t.stats);
    if (t.info.unread) entry["not_scanned"] = t.info.unread->category;
    if (!report.shards.empty()) entry["shard"] = t.info.shard;
    tensors.push_back(std::move(entry));
  }
  json findings = json::array();
  for (const Detection& f : report.findings) {
    findings.push_back({{"id", f.id},
                        {"severity", std::string(name(f.severity))},
                        {"tensor", f.tensor.value_or("")},
                        {"message", f.message}});
  }
  json metadata = json::object();
  for (const auto& [key, value] : report.metadata) metadata[key] = value;
  json out = {{"file", report.file},
              {"format", std::string(name(report.format))},
              {"file_size", report.file_size},
              {"metadata", metadata},
              {"tensors", tensors},
              {"findings", findings}};
  if (!report.shards.empty()) {
    json shards = json::array();
    for (const ShardSummary& shard : report.shards) {
      shards.push_back({{"name", shard.name},
                        {"format", std::string(name(shard.format))},
                        {"file_size", shard.file_size},
                        {"tensor_count", shard.tensor_count},
                        {"tensor_bytes", shard.tensor_bytes}});
    }
    out["shards"] = std::move(shards);
  }
  return out;
}

json error_json(const InputError& error) {
  return {{"error", {{"kind", std::string(error.kind_name())}, {"message", error.what()}}}};
}

}  // namespace blasscope::core
