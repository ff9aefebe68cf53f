#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exec/kernel_record.h"

namespace blasscope::core {

// One CUPTI activity record, copied out of CUPTI's buffer into plain fields (the plugin does
// the copying; everything after it is host code tested without a GPU).
struct ActivityRecordView {
  enum class Kind { Kernel, Memcpy, Memset, Memory, Overhead, ExternalCorrelation, Other };
  Kind kind = Kind::Other;
  std::string name;  // kernel name, memcpy direction, overhead kind
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t correlation_id = 0;
  std::uint64_t external_id = 0;  // ExternalCorrelation: BLAScope's op index + 1
  std::int32_t grid[3] = {0, 0, 0};
  std::int32_t block[3] = {0, 0, 0};
  std::uint64_t bytes = 0;
};

// Turns activity records, which arrive in buffers in completion order, into per-op device
// events: CUPTI's correlation ids are mapped to BLAScope's ops through the external
// correlation records the plugin pushes around each op; records whose mapping has not
// arrived yet wait for it; records of unknown ops go to the op being traced.
class ActivityCollector {
 public:
  // The op whose work is being traced now (for records that carry no correlation).
  void begin_op(std::size_t op) { m_current = op; }
  void add(const ActivityRecordView& record);
  void add_dropped(std::uint64_t count) { m_dropped += count; }
  // The device events of `op`, sorted by start time, and the records dropped so far.
  std::vector<DeviceEventRecord> take(std::size_t op);
  std::uint64_t dropped() const { return m_dropped; }

 private:
  void place(const ActivityRecordView& record, std::size_t op);

  std::optional<std::size_t> m_current;
  std::map<std::uint32_t, std::size_t> m_op_of_correlation;
  std::vector<ActivityRecordView> m_waiting;  // kernels whose correlation has not been seen
  std::map<std::size_t, std::vector<DeviceEventRecord>> m_by_op;
  std::uint64_t m_dropped = 0;
};

}  // namespace blasscope::core
