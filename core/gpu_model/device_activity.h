#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "results/kernel_record.h"

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
// correlation records the plugin pushes around each op. Records that carry no correlation
// (overhead) belong to the op whose time window holds their start; a record whose mapping
// never arrived does too; what falls outside every window is dropped. Buffers are flushed once per run, so nothing here
// is per-op work.
class ActivityCollector {
 public:
  // The op traced from `now_ns` (CUPTI's clock) until end_op.
  void begin_op(std::size_t op, std::uint64_t now_ns = 0);
  void end_op(std::uint64_t now_ns);
  void add(const ActivityRecordView& record);
  // Whether external correlation records come (CUPTI's API kinds traced): without them a record
  // is placed by its time at once, rather than kept until its correlation arrives.
  void set_correlated(bool correlated) { m_correlated = correlated; }
  void add_dropped(std::uint64_t count) { m_dropped += count; }
  // Every op's device events, sorted by start time; the collector is empty afterwards.
  std::map<std::size_t, std::vector<DeviceEventRecord>> take_all();
  std::uint64_t dropped() const { return m_dropped; }

 private:
  struct Window {
    std::size_t op;
    std::uint64_t begin_ns, end_ns;
  };
  void place(const ActivityRecordView& record, std::size_t op);
  std::optional<std::size_t> op_at(std::uint64_t t_ns) const;

  std::vector<Window> m_windows;  // in the order the ops ran
  std::map<std::uint32_t, std::size_t> m_op_of_correlation;
  std::multimap<std::uint32_t, ActivityRecordView> m_waiting;  // correlation not seen yet
  std::map<std::size_t, std::vector<DeviceEventRecord>> m_by_op;
  std::uint64_t m_dropped = 0;
  bool m_correlated = true;
  // Readable name and family per raw kernel name: the same few cuBLAS kernels run over and
  // over, and demangling plus the family rules cost about 20 us for a long name.
  std::unordered_map<std::string, std::pair<std::string, std::string>> m_kernel_names;
};

}  // namespace blasscope::core
