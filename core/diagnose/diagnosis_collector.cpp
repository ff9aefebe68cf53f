#include "diagnose/diagnosis_collector.h"

#include "record/routine_names.h"
#include "text/json.h"

namespace blasscope::core::recorded {

using record::CallRecord;

void Collector::add(const std::string& id, Severity severity, const CallRecord& c, std::string message,
                    std::vector<std::string> evidence, Specific specific) {
  if (!m_calls.insert({id, c.id}).second) return;  // this call has it already (two DLASCLs inside one driver)
  const auto key = std::make_tuple(id, record::routine_name(c.routine, c.precision), specific.variant);
  const bool child = m_program_pid && c.pid && c.pid != m_program_pid;
  const auto it = m_index.find(key);
  if (it != m_index.end()) {
    if (child) m_child_pids[it->second].insert(c.pid);
    if (!child) m_in_program[it->second] = true;
    ++m_repeats[it->second];
    ++m_details[it->second][specific.detail];
    auto& ids = m_out[it->second].facts["calls"];
    if (ids.size() < kListedIds) ids.push_back(c.id);
    return;
  }
  Diagnosis d;
  d.id = id;
  d.severity = severity;
  // Named once: a message about the process itself ("process 41 ended inside ...") needs no suffix.
  const std::string pid = std::to_string(c.pid);
  if (child && message.find("process " + pid) == std::string::npos) message += " (in child process " + pid + ")";
  d.message = message;
  d.title = message;
  d.evidence = std::move(evidence);
  d.facts = {{"call", c.id},
             {"calls", nlohmann::json::array({c.id})},
             {"routine", record::routine_name(c.routine, c.precision)},
             {"pid", c.pid},
             {"thread", c.tid}};
  m_index.emplace(key, m_out.size());
  m_out.push_back(std::move(d));
  m_specific.push_back(std::move(specific));
  m_repeats.push_back(0);
  m_child_pids.emplace_back();
  if (child) m_child_pids.back().insert(c.pid);
  m_in_program.push_back(!child);
  m_details.emplace_back();
  m_details.back()[m_specific.back().detail] = 0;  // the first call's own, listed only if repeated
}

std::vector<Diagnosis> Collector::finish() {
  for (std::size_t i = 0; i < m_out.size(); ++i) {
    if (m_repeats[i]) {
      // Where the repeats differ (INFO = 3 and 5): how many had each, the first call's included.
      std::string others;
      if (m_details[i].size() > 1) {
        constexpr std::size_t kListed = 10;
        std::size_t listed = 0;
        for (const auto& [detail, times] : m_details[i]) {
          if (++listed > kListed) {
            others += ", and " + std::to_string(m_details[i].size() - kListed) + " other values";
            break;
          }
          const bool first = detail == m_specific[i].detail;
          const std::uint64_t calls = times + (first ? 1 : 0);
          others += (others.empty() ? "" : ", ") + detail + ": " + std::to_string(calls) +
                    (calls == 1 ? " call" : " calls") + (first ? " (the one above among them)" : "");
        }
      }
      m_out[i].evidence.push_back(
          "and " + std::to_string(m_repeats[i]) + (m_repeats[i] == 1 ? " more call like it" : " more calls like it") +
          (others.empty() ? "" : "; of all " + std::to_string(m_repeats[i] + 1) + ", " + others));
    }
    if (const std::string where = child_processes(i); !where.empty()) m_out[i].evidence.push_back(where);
    m_out[i].facts["repeats"] = m_repeats[i];
    m_out[i] = explained(std::move(m_out[i]));
    if (!m_specific[i].cause.empty()) m_out[i].cause = m_specific[i].cause;
    if (!m_specific[i].fix.empty()) m_out[i].fix = m_specific[i].fix;
    put_seen_as_first(m_out[i], m_specific[i].seen_as_key);
  }
  return std::move(m_out);
}

std::string Collector::child_processes(std::size_t i) const {
  const std::set<std::uint32_t>& pids = m_child_pids[i];
  const bool first_in_child = m_out[i].facts.value("pid", 0u) != m_program_pid;
  if (pids.empty() || (first_in_child && pids.size() == 1 && !m_in_program[i])) return {};
  constexpr std::size_t kListed = 10;
  std::string list;
  std::size_t listed = 0;
  for (const std::uint32_t pid : pids) {
    if (++listed > kListed) {
      list += " and " + std::to_string(pids.size() - kListed) + " more";
      break;
    }
    list += (list.empty() ? "" : ", ") + std::to_string(pid);
  }
  const std::string processes = pids.size() == 1 ? "child process " : "child processes ";
  return "such calls ran in " + processes + list + (m_in_program[i] ? " as well as in the program" : "");
}

}  // namespace blasscope::core::recorded
