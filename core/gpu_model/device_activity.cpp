#include "gpu_model/device_activity.h"

#include <algorithm>

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

void ActivityCollector::add(const ActivityRecordView& record) {
  using Kind = ActivityRecordView::Kind;
  if (record.kind == Kind::ExternalCorrelation) {
    if (record.external_id == 0) return;
    const std::size_t op = record.external_id - 1;
    m_op_of_correlation[record.correlation_id] = op;
    // Records that completed before their correlation record can be placed now.
    std::vector<ActivityRecordView> still_waiting;
    for (const auto& waiting : m_waiting) {
      if (waiting.correlation_id == record.correlation_id) {
        place(waiting, op);
      } else {
        still_waiting.push_back(waiting);
      }
    }
    m_waiting.swap(still_waiting);
    return;
  }
  if (record.kind == Kind::Other) return;
  const auto it = m_op_of_correlation.find(record.correlation_id);
  if (it != m_op_of_correlation.end()) {
    place(record, it->second);
  } else if (record.correlation_id != 0) {
    m_waiting.push_back(record);
  } else if (m_current) {
    place(record, *m_current);
  }
}

void ActivityCollector::place(const ActivityRecordView& r, std::size_t op) {
  DeviceEventRecord e;
  e.kind = kind_name(r.kind);
  e.name = r.name;
  e.family = r.kind == ActivityRecordView::Kind::Kernel ? kernel_family(r.name) : e.kind;
  e.start_ns = r.start_ns;
  e.end_ns = r.end_ns;
  e.grid = {r.grid[0], r.grid[1], r.grid[2]};
  e.block = {r.block[0], r.block[1], r.block[2]};
  e.bytes = r.bytes;
  m_by_op[op].push_back(std::move(e));
}

std::vector<DeviceEventRecord> ActivityCollector::take(std::size_t op) {
  // Whatever still waits for a correlation belongs to the op that was traced.
  for (const auto& waiting : m_waiting) place(waiting, m_current.value_or(op));
  m_waiting.clear();
  std::vector<DeviceEventRecord> events = std::move(m_by_op[op]);
  m_by_op.erase(op);
  std::sort(events.begin(), events.end(),
            [](const DeviceEventRecord& a, const DeviceEventRecord& b) { return a.start_ns < b.start_ns; });
  return events;
}

}  // namespace blasscope::core
