#include "record/drained_calls.h"

#include <algorithm>
#include <span>

namespace blasscope::record {

DrainedCalls::DrainedCalls(SharedBuffer& buffer, const RecordOptions& options, Recording& out)
    : m_buffer(buffer), m_options(options), m_out(out) {
  if (!options.on_calls) {
    // Everything is kept: room reserved (not touched) up front, so it is never copied as it grows.
    out.calls.reserve(std::min<std::uint64_t>(options.max_calls, std::uint64_t{1} << 22));
  }
}

bool DrainedCalls::worth_keeping(const CallRecord& c) {
  if (!m_options.on_calls) return true;
  const bool wanted = m_wanted.erase(c.id) > 0;
  const bool keep = wanted || c.pid != m_out.pid || (c.flags & kCaptured) || c.info != 0 || c.xerbla_parameter != 0 ||
                    c.input_nan != 0 || c.input_inf != 0 || c.output_nan != 0 || c.output_inf != 0;
  // A call finishes after the calls it makes: its caller is still to come.
  if (keep && c.parent) m_wanted.insert(c.parent);
  return keep;
}

std::size_t DrainedCalls::drain(bool final) {
  m_drained.clear();
  const std::uint64_t room = m_options.max_calls > m_taken ? m_options.max_calls - m_taken : 0;
  const std::size_t left_ring = m_buffer.drain(m_drained, final, room);
  if (m_drained.empty()) return left_ring;
  // Mapped through the line from the start to now: every call drained lies between the two
  // samples, so each is placed to within a sample's error, whenever it is drained.
  const ClockMap clock = m_buffer.clock_map();
  for (CallRecord& c : m_drained) {
    c.start_ns = clock.point(c.start_ns);
    c.duration_ns = clock.span(c.duration_ns);
    if (worth_keeping(c)) m_out.calls.push_back(c);
  }
  m_taken += m_drained.size();
  if (m_options.on_calls) m_options.on_calls(m_drained, m_out);
  return left_ring;
}

}  // namespace blasscope::record
