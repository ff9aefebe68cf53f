#pragma once

// The diagnoses of a recording as they are found: one per failure kind, routine and cause,
// naming the first call and counting the calls like it (and the processes they ran in).
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "diagnose/diagnosis.h"
#include "record/call_record.h"

namespace blasscope::core::recorded {

// Diagnoses keyed by (id, routine, variant): the first call is named, later ones like it are
// counted. The variant keeps apart failures of one id that differ in cause (another parameter,
// an overflow beside a NaN input). `cause` and `fix`, when given, replace the catalogue's.
struct Specific {
  std::string variant, cause, fix;
  // What tells this call apart from the others counted with it ("INFO = 5"), said beside the
  // count where theirs differ from the first's.
  std::string detail = {};
  std::string seen_as_key = {};  // put_seen_as_first's: this failure's messages first
};

class Collector {
  static constexpr std::size_t kListedIds = 1000;  // the calls a diagnosis lists by id (facts "calls")

 public:
  // The program's process, where the recording holds calls of its children too: a diagnosis of a
  // child's call names the child (its own session is named after it).
  explicit Collector(std::uint32_t program_pid = 0) : m_program_pid(program_pid) {}
  void add(const std::string& id, Severity severity, const record::CallRecord& c, std::string message,
           std::vector<std::string> evidence, Specific specific = {});
  std::vector<Diagnosis> finish();

  bool has(const std::string& id, std::uint64_t call) const { return m_calls.count({id, call}) > 0; }

 private:
  // Which processes the calls counted together ran in, where that is more than the message says:
  // calls in the program and in a child, or in several children.
  std::string child_processes(std::size_t i) const;

  std::uint32_t m_program_pid;
  std::set<std::pair<std::string, std::uint64_t>> m_calls;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> m_index;
  std::vector<Diagnosis> m_out;
  std::vector<Specific> m_specific;
  std::vector<std::uint64_t> m_repeats;
  std::vector<std::set<std::uint32_t>> m_child_pids;  // per diagnosis: children its calls ran in
  std::vector<bool> m_in_program;                     // and whether any ran in the program itself
  // Calls counted by detail, the first call's detail included; numbers in order ("INFO = 5"
  // before "INFO = 10").
  struct ByNumber {
    bool operator()(const std::string& a, const std::string& b) const {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    }
  };
  std::vector<std::map<std::string, std::uint64_t, ByNumber>> m_details;
};

}  // namespace blasscope::core::recorded
