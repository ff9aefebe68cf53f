#include "diagnose/diagnosis.h"

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
