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

bool DrainedCalls::needed_one_by_one(const CallRecord& c) {
  const bool wanted = m_wanted.erase(c.id) > 0;
  const bool keep = wanted || c.pid != m_out.pid || (c.flags & kCaptured) || c.info != 0 || c.xerbla_parameter != 0 ||
                    c.input_nan != 0 || c.input_inf != 0 || c.output_nan != 0 || c.output_inf != 0;
  // A call finishes after the calls it makes: its caller is still to come.
  if (keep && c.parent) m_wanted.insert(c.parent);
  return keep;
}

std::size_t DrainedCalls::drain(bool final) {
  m_drained.clear();
  const std::size_t left_ring = m_buffer.drain(m_drained, final);
  if (m_drained.empty()) return left_ring;
  // Mapped through the line from the start to now: every call drained lies between the two
  // samples, so each is placed to within a sample's error, whenever it is drained.
  const ClockMap clock = m_buffer.clock_map();
  std::size_t passed = 0;
  for (CallRecord& c : m_drained) {
    c.start_ns = clock.point(c.start_ns);
    c.duration_ns = clock.span(c.duration_ns);
    const bool needed = needed_one_by_one(c);
    if (m_taken >= m_options.max_calls) {
      if (!needed || m_taken_past_cap >= m_options.max_calls) {
        ++m_not_kept;
        continue;
      }
      ++m_taken_past_cap;
    }
    ++m_taken;
    if (needed || !m_options.on_calls) m_out.calls.push_back(c);
    m_drained[passed++] = c;
  }
  m_drained.resize(passed);
  if (m_options.on_calls && passed) m_options.on_calls(m_drained, m_out);
  return left_ring;
}

}  // namespace blasscope::record
