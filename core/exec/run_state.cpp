#include "exec/run_state.h"

#include "analysis/tensor_layout.h"
#include "text/format.h"

namespace blasscope::core {

RunState::RunState(EventSink& sink, std::optional<std::uint64_t> memory_limit) : m_sink(sink), m_budget(memory_limit) {}

void RunState::publish(RunEventBody event) {
  m_sink.publish({std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count(), std::move(event)});
}

HostTensor* RunState::find(const std::string& name) {
  const auto it = m_tensors.find(name);
  return it == m_tensors.end() ? nullptr : &it->second.tensor;
}

void RunState::reserve(std::uint64_t bytes, const std::string& what) {
  if (m_budget.try_reserve(bytes)) return;
  throw OutOfBudget(what + " needs " + format_bytes(bytes) + " but only " + format_bytes(m_budget.available()) +
                        " of the " + format_bytes(m_budget.limit()) + " budget is left",
                    bytes, m_budget.available(), m_budget.limit());
}

void RunState::release(std::uint64_t bytes) {
  m_budget.release(bytes);
}

HostTensor& RunState::adopt(HostTensor tensor, std::uint64_t charged, const std::string& source) {
  const std::string name = tensor.name();
  free(name);
  publish(events::TensorAllocated{name, tensor.dtype(), tensor.shape(), tensor.order(), charged,
                                  alignment_of(reinterpret_cast<std::uintptr_t>(tensor.data())), source});
  auto [it, inserted] = m_tensors.insert_or_assign(name, Entry{std::move(tensor), charged});
  publish(events::HostMemory{m_budget.used()});
  return it->second.tensor;
}

HostTensor& RunState::create(const std::string& name, DType dtype, const std::vector<std::uint64_t>& shape,
                             MemoryOrder order) {
  const std::uint64_t bytes = HostTensor::storage_bytes_for(dtype, shape, order, 0) + HostTensor::kAllocationOverhead;
  reserve(bytes, "tensor '" + name + "'");
  try {
    return adopt(HostTensor(name, dtype, shape, order), bytes, "op");
  } catch (const std::bad_alloc&) {
    release(bytes);
    throw OutOfBudget("tensor '" + name + "': the system refused " + format_bytes(bytes), bytes, 0, m_budget.limit());
  }
}

void RunState::free_entry(const std::string& name, std::uint64_t charged) {
  release(charged);
  publish(events::TensorFreed{name, charged});
}

void RunState::free(const std::string& name) {
  const auto it = m_tensors.find(name);
  if (it == m_tensors.end()) return;
  free_entry(name, it->second.charged);
  m_tensors.erase(it);
  publish(events::HostMemory{m_budget.used()});
}

void RunState::free_all() {
  for (auto& [name, entry] : m_tensors) free_entry(name, entry.charged);
  m_tensors.clear();
  publish(events::HostMemory{m_budget.used()});
}

}  // namespace blasscope::core
