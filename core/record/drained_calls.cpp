#include "record/drained_calls.h"

#include <algorithm>
#include <new>
#include <span>

namespace blasscope::record {

DrainedCalls::DrainedCalls(SharedBuffer& buffer, const RecordOptions& options, Recording& out)
    : m_buffer(buffer), m_options(options), m_out(out) {
  if (!options.on_calls) {
    // Everything is kept: room reserved (not touched) up front, so it is never copied as it grows.
    out.calls.reserve(std::min<std::uint64_t>(options.max_calls, std::uint64_t{1} << 22));
  }
}

DrainedCalls::Need DrainedCalls::need_of(const CallRecord& c) {
  const bool wanted = m_wanted.erase(c.id) > 0;
  if (wanted || needed_one_by_one(c)) return Need::Failure;
  // (Where on_calls sets a child's calls aside itself, they are not kept here as well.)
  return c.pid != m_out.pid && (m_options.keep_child_calls || !m_options.on_calls) ? Need::Child : Need::None;
}

void DrainedCalls::keep(const CallRecord& c, Need need) {
  try {
    // A call finishes after the calls it makes: a kept call's caller is still to come.
    if (need != Need::None && c.parent) m_wanted.insert(c.parent);
    m_out.calls.push_back(c);
  } catch (const std::bad_alloc&) {
    // A recorder under `ulimit -v`: the call is still handed on (its session lists it) and
    // counted in the totals; the recording says how many it could not keep.
    ++m_not_kept_for_memory;
  }
}

std::size_t DrainedCalls::drain(bool final) {
  m_drained.clear();
  const std::size_t left_ring = m_buffer.drain(m_drained, final);
  if (m_drained.empty()) return left_ring;
  // Mapped through the segments of the continuous map (ContinuousClockMap): each tick is placed
  // to within a sample's error, and where it was placed at an earlier drain.
  const ClockMap clock = m_buffer.clock_map();
  std::size_t passed = 0;
  for (CallRecord& c : m_drained) {
    c.duration_ns = clock.span_from(c.start_ns, c.duration_ns);
    c.start_ns = clock.point(c.start_ns);
    m_unlisted += c.unlisted;
    const Need need = need_of(c);
    if (m_taken >= m_options.max_calls) {
      // Past the cap only failures and the calls they were made from go on, with a budget of
      // their own (a child process's ordinary calls do not use it up).
      // (at least 100,000: a tiny cap must not cut a failure from the call it was made in)
      if (need != Need::Failure || m_taken_past_cap >= std::max<std::uint64_t>(m_options.max_calls, 100000)) {
        ++m_not_kept;
        continue;
      }
      ++m_taken_past_cap;
    }
    ++m_taken;
    if (need != Need::None || !m_options.on_calls) keep(c, need);
    m_drained[passed++] = c;
  }
  m_drained.resize(passed);
  if (m_options.on_calls && passed) m_options.on_calls(m_drained, m_out);
  return left_ring;
}

}  // namespace blasscope::record
