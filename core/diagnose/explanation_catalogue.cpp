#include "diagnose/explanation_catalogue.h"

#include <sstream>
#include <stdexcept>

#include "resources/embedded_resources.h"

namespace blasscope::core {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \n\t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \n\t") - first + 1);
}

Severity severity_from(const std::string& text) {
  if (text == "error") return Severity::Error;
  if (text == "warning") return Severity::Warning;
  if (text == "info") return Severity::Info;
  throw std::runtime_error("unknown severity '" + text + "'");
}

}  // namespace

const std::vector<std::string>& diagnosis_ids() {
  static const std::vector<std::string> kIds = {"dlascl-invalid-cfrom", "non-finite-input",
                                                "non-finite-output",    "illegal-argument",
                                                "shape-mismatch",       "dtype-mismatch",
                                                "unsupported-dtype",    "cast-overflow",
                                                "cast-precision-loss",  "out-of-memory",
                                                "index-overflow",       "buffer-overrun",
                                                "worker-crashed",       "no-gpu",
                                                "cublas-error",         "cuda-error",
                                                "misaligned-buffer",    "non-contiguous-layout",
                                                "ld-cache-aliasing",    "blas-kernel-mismatch",
                                                "subnormal-values",     "lapack-failed",
                                                "unreadable-input",     "cpu-gpu-disagreement",
                                                "kernel-hang",          "program-crashed"};
  return kIds;
}

Explanation parse_explanation(const std::string& text) {
  Explanation e;
  e.text = text;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != "---") throw std::runtime_error("explanation must start with ---");
  while (std::getline(in, line) && line != "---") {
    const auto colon = line.find(':');
    if (colon == std::string::npos) throw std::runtime_error("bad header line: " + line);
    const std::string key = line.substr(0, colon), value = trim(line.substr(colon + 1));
    if (key == "id")
      e.id = value;
    else if (key == "severity")
      e.severity = severity_from(value);
    else if (key == "title")
      e.title = value;
    else
      throw std::runtime_error("unknown header key '" + key + "'");
  }
  std::string section, body;
  auto flush = [&] {
    if (section == "Cause")
      e.cause = trim(body);
    else if (section == "Fix")
      e.fix = trim(body);
    else if (section == "Seen as") {
      std::istringstream items(body);
      for (std::string item; std::getline(items, item);) {
        if (item.rfind("- ", 0) == 0) {
          std::string entry = item.substr(2);
          if (entry.size() >= 2 && entry.front() == '`' && entry.back() == '`')
            entry = entry.substr(1, entry.size() - 2);
          e.seen_as.push_back(entry);
        }
      }
    } else if (!section.empty()) {
      throw std::runtime_error("unknown section '" + section + "'");
    }
    body.clear();
  };
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      flush();
      section = line.substr(3);
    } else {
      body += line + "\n";
    }
  }
  flush();
  if (e.id.empty() || e.title.empty() || e.cause.empty() || e.fix.empty() || e.seen_as.empty()) {
    throw std::runtime_error("explanation '" + e.id + "' lacks an id, title, Cause, Fix or Seen as");
  }
  return e;
}

const std::vector<Explanation>& explanation_catalogue() {
  static const std::vector<Explanation> kCatalogue = [] {
    std::vector<Explanation> all;
    for (const auto& r : embedded_resources()) {
      if (r.path.rfind("explanations/", 0) != 0) continue;
      try {
        all.push_back(parse_explanation(std::string(r.text)));
      } catch (const std::runtime_error& error) {
        throw std::runtime_error(std::string(r.path) + ": " + error.what());
      }
    }
    return all;
  }();
  return kCatalogue;
}

const Explanation* find_explanation(const std::string& id) {
  for (const auto& e : explanation_catalogue()) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

}  // namespace blasscope::core
