#include "diagnose/diagnosis.h"

#include <algorithm>
#include <cctype>

#include "diagnose/explanation_catalogue.h"

namespace blasscope::core {

Diagnosis detected(std::string id, Severity severity, std::optional<std::size_t> op, std::optional<std::string> tensor,
                   std::string title, std::vector<std::string> evidence) {
  Diagnosis d;
  d.id = std::move(id);
  d.severity = severity;
  d.op = op;
  d.tensor = std::move(tensor);
  d.title = std::move(title);
  d.evidence = std::move(evidence);
  return d;
}

Diagnosis diagnosis_of(const Detection& detection) {
  Diagnosis d;
  static_cast<Detection&>(d) = detection;
  d.evidence = {detection.message};
  return d;
}

Diagnosis explained(Diagnosis d) {
  if (const Explanation* e = find_explanation(d.id)) {
    if (d.title.empty()) d.title = e->title;
    d.cause = e->cause;
    d.fix = e->fix;
    d.seen_as = e->seen_as;
  }
  return d;
}

void put_seen_as_first(Diagnosis& d, std::string_view key) {
  if (key.empty()) return;
  auto lower = [](std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
  };
  std::vector<std::string> wanted;
  for (std::size_t at = 0; at <= key.size();) {
    const std::size_t bar = std::min(key.find('|', at), key.size());
    if (bar > at) wanted.push_back(lower(key.substr(at, bar - at)));
    at = bar + 1;
  }
  // The last alternative's lines moved first, then the one before's ahead of them: the first's lead.
  for (auto w = wanted.rbegin(); w != wanted.rend(); ++w) {
    std::stable_partition(d.seen_as.begin(), d.seen_as.end(),
                          [&](const std::string& line) { return lower(line).find(*w) != std::string::npos; });
  }
}

nlohmann::json to_json(const Diagnosis& d) {
  return {{"id", d.id},
          {"severity", std::string(name(d.severity))},
          {"op", d.op ? nlohmann::json(*d.op) : nlohmann::json()},
          {"tensor", d.tensor ? nlohmann::json(*d.tensor) : nlohmann::json()},
          {"title", d.title},
          {"evidence", d.evidence},
          {"cause", d.cause},
          {"fix", d.fix},
          {"seen_as", d.seen_as}};
}

bool has_error(const std::vector<Diagnosis>& diagnoses) {
  for (const auto& d : diagnoses) {
    if (d.severity == Severity::Error) return true;
  }
  return false;
}

}  // namespace blasscope::core
