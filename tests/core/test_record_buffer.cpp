// The recorder's side of the shared file: how it maps the TSC to nanoseconds, reads the calls
// a thread publishes while they run, and drains the ring, written here as the preload
// library writes them.
#include <gtest/gtest.h>

#include "record/shared_buffer.h"

namespace blasscope::record {
namespace {

TEST(ClockMap, TicksMapOntoTheLineThroughBothSamples) {
  // 3 ticks per nanosecond, tick 3000 at 1000 ns.
  const ClockMap map = clock_map_between(3000, 1000, 3003000, 1001000);
  EXPECT_FALSE(map.identity);
  EXPECT_EQ(map.point(3000), 1000u);
  EXPECT_EQ(map.point(303000), 101000u);
  EXPECT_EQ(map.span(3000), 1000u);
  EXPECT_EQ(map.point(0), 0u);  // before the first sample: clamped, never wrapped around
}

TEST(ClockMap, SamplesTooCloseToTellLeaveTicksAsNanoseconds) {
  EXPECT_TRUE(clock_map_between(5, 5, 5, 9).identity);
  EXPECT_TRUE(clock_map_between(5, 9, 9, 9).identity);
  EXPECT_EQ(ClockMap{}.point(1234), 1234u);
}

TEST(SharedBufferClock, AFreshMapAgreesWithTheMonotonicClock) {
  SharedBuffer buffer(false);
  const std::uint64_t ticks = read_call_clock(buffer.header().clock.load());
  const std::uint64_t ns = monotonic_ns();
  const ClockMap map = buffer.clock_map();
  const double apart = static_cast<double>(map.point(ticks)) - static_cast<double>(ns);
  EXPECT_LT(std::abs(apart), 1e6) << "a tick read now maps to within 1 ms of now";
}

CallRecord call_with_id(std::uint64_t id) {
  CallRecord c;
  c.id = id;
  c.m = static_cast<std::int32_t>(id);
  return c;
}

TEST(SharedBufferRunning, TheInnermostPublishedCallOfEachThreadIsRunning) {
  SharedBuffer buffer(false);
  ActiveSlot& slot = buffer.header().active[3];
  buffer.header().slots_seen.store(4);  // as a thread does before it takes slot 3
  slot.owner_tid.store(77);
  slot.owner_pid.store(1);
  slot.stack[0] = call_with_id(10);
  slot.stack[1] = call_with_id(11);
  slot.depth.store(2);
  slot.version.store(4);
  auto running = buffer.running();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].id, 11u);

  slot.depth.store(1);  // the inner call returned
  running = buffer.running();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].id, 10u);

  slot.version.store(5);  // stack[1] is being rewritten: the published call below still shows
  running = buffer.running();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].id, 10u);
  slot.version.store(6);
  slot.depth.store(0);
  EXPECT_TRUE(buffer.running().empty());
}

TEST(SharedBufferDrain, CompleteEntriesInOrderAndAnAbandonedOneOnlyAtTheEnd) {
  SharedBuffer buffer(false);
  SharedHeader& h = buffer.header();
  for (std::uint64_t i = 0; i < 3; ++i) {
    h.ring[i].call = call_with_id(100 + i);
    if (i != 1) h.ring[i].ready.store(i + 1);  // entry 1 reserved by a writer that died
  }
  h.write_index.store(3);
  std::vector<CallRecord> out;
  buffer.drain(out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, 100u);
  EXPECT_EQ(h.read_index.load(), 1u) << "the read index stops at the unfinished entry";
  buffer.drain(out, true);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].id, 102u);
  EXPECT_EQ(buffer.lost(), 1u);
  EXPECT_EQ(h.read_index.load(), 3u);
}

}  // namespace
}  // namespace blasscope::record
