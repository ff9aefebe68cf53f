#include "gpu_model/device_activity.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include "gpu_model/kernel_family.h"

namespace blasscope::core {
namespace {

std::string kind_name(ActivityRecordView::Kind kind) {
  switch (kind) {
    case ActivityRecordView::Kind::Kernel: return "kernel";
    case ActivityRecordView::Kind::Memcpy: return "memcpy";
    case ActivityRecordView::Kind::Memset: return "memset";
    case ActivityRecordView::Kind::Memory: return "memory";
    case ActivityRecordView::Kind::Overhead: return "overhead";
    default: return "other";
  }
}

}  // namespace

void ActivityCollector::begin_op(std::size_t op, std::uint64_t now_ns) {
  m_windows.push_back({op, now_ns, std::numeric_limits<std::uint64_t>::max()});
}

void ActivityCollector::end_op(std::uint64_t now_ns) {
  if (!m_windows.empty()) m_windows.back().end_ns = now_ns;
}

std::optional<std::size_t> ActivityCollector::op_at(std::uint64_t t_ns) const {
  // The op whose window holds t. Each window spans all of its op's device work (set-up,
  // copies, kernels, frees), so what falls outside every window is not an op's. Ops run one
  // after another: the windows are in time order, the last one that began by t is the one.
  const auto after = std::upper_bound(m_windows.begin(), m_windows.end(), t_ns,
                                      [](std::uint64_t t, const Window& w) { return t < w.begin_ns; });
  if (after == m_windows.begin()) return std::nullopt;
  const Window& w = *std::prev(after);
  if (t_ns <= w.end_ns) return w.op;
  return std::nullopt;
}

void ActivityCollector::add(const ActivityRecordView& record) {
  using Kind = ActivityRecordView::Kind;
  if (record.kind == Kind::ExternalCorrelation) {
    if (record.external_id == 0) return;
    const std::size_t op = record.external_id - 1;
    m_op_of_correlation[record.correlation_id] = op;
    // Records that completed before their correlation record can be placed now.
    const auto [first, last] = m_waiting.equal_range(record.correlation_id);
    for (auto it = first; it != last; ++it) place(it->second, op);
    m_waiting.erase(first, last);
    return;
  }
  if (record.kind == Kind::Other) return;
  if (!m_correlated) {
    if (const auto op = op_at(record.start_ns)) place(record, *op);
    return;
  }
  const auto it = m_op_of_correlation.find(record.correlation_id);
  if (it != m_op_of_correlation.end()) {
    place(record, it->second);
  } else if (record.correlation_id != 0) {
    m_waiting.emplace(record.correlation_id, record);
  } else if (const auto op = op_at(record.start_ns)) {
    place(record, *op);
  }
}

void ActivityCollector::place(const ActivityRecordView& r, std::size_t op) {
  DeviceEventRecord e;
  e.kind = kind_name(r.kind);
  if (r.kind == ActivityRecordView::Kind::Kernel) {
    auto known = m_kernel_names.find(r.name);
    if (known == m_kernel_names.end()) {
      if (m_kernel_names.size() >= 4096) m_kernel_names.clear();  // a bound, never reached by real runs
      std::string readable = readable_kernel_name(r.name);
      std::string family = kernel_family(readable);
      known = m_kernel_names.emplace(r.name, std::make_pair(std::move(readable), std::move(family))).first;
    }
    e.name = known->second.first;
    e.family = known->second.second;
  } else {
    e.name = r.name;
    e.family = e.kind;
  }
  e.start_ns = r.start_ns;
  e.end_ns = r.end_ns;
  e.grid = {r.grid[0], r.grid[1], r.grid[2]};
  e.block = {r.block[0], r.block[1], r.block[2]};
  e.bytes = r.bytes;
  m_by_op[op].push_back(std::move(e));
}

std::map<std::size_t, std::vector<DeviceEventRecord>> ActivityCollector::take_all() {
  // A record whose correlation never arrived belongs to the op running when it started.
  for (const auto& [correlation, waiting] : m_waiting) {
    if (const auto op = op_at(waiting.start_ns)) place(waiting, *op);
  }
  m_waiting.clear();
  m_windows.clear();
  m_op_of_correlation.clear();
  auto by_op = std::move(m_by_op);
  m_by_op.clear();
  for (auto& [op, events] : by_op) {
    std::sort(events.begin(), events.end(),
              [](const DeviceEventRecord& a, const DeviceEventRecord& b) { return a.start_ns < b.start_ns; });
  }
  return by_op;
}

}  // namespace blasscope::core
