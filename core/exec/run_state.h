#pragma once

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>

#include "exec/memory_budget.h"
#include "results/event_sink.h"
#include "tensor/host_tensor.h"
#include "text/json.h"

namespace blasscope::core {

// A tensor or workspace that did not fit the memory budget.
struct OutOfBudget : std::runtime_error {
  OutOfBudget(const std::string& what, std::uint64_t requested, std::uint64_t available, std::uint64_t limit)
      : std::runtime_error(what), requested(requested), available(available), limit(limit) {}
  std::uint64_t requested, available, limit;
};

// Tensors an op makes for itself (promoted copies, saved inputs), freed when it ends.
class ScopedTemporaries;

// The tensors of a running workload, the memory budget they are charged to, and the
// event stream. Every allocation goes through here so it is checked and reported.
class RunState {
 public:
  RunState(EventSink& sink, std::optional<std::uint64_t> memory_limit);

  // Emits an event stamped with the seconds since the run started.
  void publish(RunEventBody event);
  HostTensor* find(const std::string& name);
  // Charges `bytes` to the budget, or throws OutOfBudget naming `what`.
  void reserve(std::uint64_t bytes, const std::string& what);
  void release(std::uint64_t bytes);
  // Adds a tensor whose storage has been reserved already (`charged` bytes).
  HostTensor& adopt(HostTensor tensor, std::uint64_t charged, const std::string& source);
  // Reserves, allocates (zeroed) and adopts a new tensor.
  HostTensor& create(const std::string& name, DType dtype, const std::vector<std::uint64_t>& shape, MemoryOrder order);
  void free(const std::string& name);
  void free_all();
  const MemoryBudget& budget() const { return m_budget; }

 private:
  void free_entry(const std::string& name, std::uint64_t charged);

  struct Entry {
    HostTensor tensor;
    std::uint64_t charged;
  };
  EventSink& m_sink;
  MemoryBudget m_budget;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  std::map<std::string, Entry> m_tensors;
};

class ScopedTemporaries {
 public:
  explicit ScopedTemporaries(RunState& state) : m_state(state) {}
  ~ScopedTemporaries() {
    for (const auto& name : m_names) m_state.free(name);
  }
  ScopedTemporaries(const ScopedTemporaries&) = delete;
  ScopedTemporaries& operator=(const ScopedTemporaries&) = delete;
  const std::string& add(std::string name) { return m_names.emplace_back(std::move(name)); }

 private:
  RunState& m_state;
  std::vector<std::string> m_names;
};

}  // namespace blasscope::core
