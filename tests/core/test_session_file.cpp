// A session file is input like any other: every field is checked and a hostile file is refused
// with an InputError naming what was wrong (never an uncaught exception, a crash or UB).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "io/input_error.h"
#include "results/session_file.h"
#include "text/json.h"

using namespace blasscope::core;
using nlohmann::json;

namespace {

std::string session_with(const std::string& events) {
  return R"({"format":"blasscope-session","version":1,"workload":"w","events":[)" + events + "]}";
}

// The message of the InputError parse_session throws, or "" when it reads the text.
std::string refusal(const std::string& text) {
  try {
    parse_session(text, "/tmp/s.json");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST(CheckedJsonIntegers, ValuesThatFitAreRead) {
  EXPECT_EQ(json(42).get<int>(), 42);
  EXPECT_EQ(json(3.0).get<std::int64_t>(), 3);
  EXPECT_EQ(json(-7).get<std::int32_t>(), -7);
  EXPECT_EQ(json(18446744073709551615ull).get<std::uint64_t>(), 18446744073709551615ull);
  EXPECT_EQ(json::parse("-9223372036854775808").get<std::int64_t>(), INT64_MIN);
  EXPECT_EQ(json(std::vector<int>{1, 2}).get<std::vector<std::size_t>>(), (std::vector<std::size_t>{1, 2}));
}

TEST(CheckedJsonIntegers, ValuesThatDoNotFitAreRefused) {
  // nlohmann alone static_casts these: undefined behaviour or a silently wrong value.
  EXPECT_THROW(json::parse("1e300").get<std::int64_t>(), json::type_error);
  EXPECT_THROW(json::parse("-1e300").get<std::uint64_t>(), json::type_error);
  EXPECT_THROW(json::parse("9223372036854775808.0").get<std::int64_t>(), json::type_error);
  EXPECT_THROW(json::parse("18446744073709551616.0").get<std::uint64_t>(), json::type_error);
  EXPECT_THROW(json(2.5).get<int>(), json::type_error);
  EXPECT_THROW(json(-1).get<std::size_t>(), json::type_error);
  EXPECT_THROW(json(4294967296ll).get<std::int32_t>(), json::type_error);
  EXPECT_THROW(json(18446744073709551615ull).get<std::int64_t>(), json::type_error);
  EXPECT_THROW(json(true).get<int>(), json::type_error);
  EXPECT_THROW(json("12").get<int>(), json::type_error);
  EXPECT_THROW(json::parse(R"({"m":1e300})").value("m", std::int64_t{0}), json::type_error);
  try {
    json::parse("1e300").get<std::int64_t>();
  } catch (const json::type_error& error) {
    EXPECT_NE(std::string(error.what()).find("got 1e+300"), std::string::npos) << error.what();
  }
}

TEST(SessionFile, ReadsWhatItWrites) {
  const SessionFile file = parse_session(
      session_with(R"({"event":"kernel_finished","t":0.5,"record":{"op":0,"kernel":"cblas_dgemm","m":3}})"),
      "/tmp/s.json");
  ASSERT_EQ(file.run.ops.size(), 1u);
  EXPECT_EQ(file.run.ops[0].m, 3);
}

TEST(SessionFile, HostileHeadersAreRefusedWithTheirReason) {
  EXPECT_NE(refusal(R"({"format":7,"version":1,"events":[]})").find("not a BLAScope session"), std::string::npos);
  EXPECT_NE(refusal(R"({"format":"blasscope-session","version":"1","events":[]})").find("\"version\""),
            std::string::npos);
  EXPECT_NE(refusal(R"({"format":"blasscope-session","version":1e300,"events":[]})").find("\"version\""),
            std::string::npos);
  EXPECT_NE(refusal(R"({"format":"blasscope-session","version":99,"events":[]})").find("version 99"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"format":"blasscope-session","version":1,"events":{}})").find("\"events\" array"),
            std::string::npos);
  EXPECT_NE(
      refusal(R"({"format":"blasscope-session","version":1,"workload_file":[],"events":[]})").find("\"workload_file\""),
      std::string::npos);
  EXPECT_NE(refusal(R"({"format":"blasscope-session","format":"blasscope-session","version":1,"events":[]})")
                .find("duplicate key 'format'"),
            std::string::npos);
}

TEST(SessionFile, HostileEventsAreRefusedNamingTheEvent) {
  const std::string m_huge = refusal(
      session_with(R"({"event":"memory","host_bytes":1},{"event":"kernel_finished","record":{"op":0,"m":1e300}})"));
  EXPECT_NE(m_huge.find("event 2 (\"kernel_finished\")"), std::string::npos) << m_huge;
  EXPECT_NE(m_huge.find("1e+300"), std::string::npos) << m_huge;
  EXPECT_NE(m_huge.find("field \"record.m\""), std::string::npos) << m_huge;
  const std::string peak =
      refusal(session_with(R"({"event":"run_started","environment":{"cpu":{"peak_gflops_fp64":"fast"}}})"));
  EXPECT_NE(peak.find("field \"environment.cpu.peak_gflops_fp64\": expected a number, got \"fast\""), std::string::npos)
      << peak;
  const std::string shape = refusal(
      session_with(R"({"event":"kernel_finished","record":{"op":0,"operands":[{"role":"a","shape":[2,true]}]}})"));
  EXPECT_NE(shape.find("field \"record.operands[0].shape[1]\""), std::string::npos) << shape;
  for (const char* event : {R"({"event":"run_started","environment":"x86"})",
                            R"({"event":"run_started","environment":{"cpu":{"peak_gflops_fp64":"fast"}}})",
                            R"({"event":"memory","host_bytes":-5})", R"({"event":"kernel_started","op":2.5})",
                            R"({"event":"tensor_allocated","dtype":"float64","shape":[1e300]})", R"("memory")",
                            R"({"event":"memory","t":"soon"})"}) {
    const std::string why = refusal(session_with(event));
    EXPECT_NE(why.find("event 1"), std::string::npos) << event << " -> " << why;
  }
}

TEST(SessionFile, ANonFiniteNumberWrittenAsNullReadsBackAsNaN) {
  // nlohmann writes Inf and NaN as null: a comparison of a NaN mismatch (max_abs_diff = inf).
  const SessionFile file = parse_session(
      session_with(R"({"event":"comparison","op":0,"max_abs_diff":null,"max_rel_diff":null,"agree":false})"), "s.json");
  ASSERT_EQ(file.run.comparisons.size(), 1u);
  EXPECT_TRUE(std::isnan(file.run.comparisons[0].max_abs_diff));
  EXPECT_FALSE(file.run.comparisons[0].agree);
  EXPECT_NE(refusal(R"({"format":"blasscope-session","version":18446744073709551615,"events":[]})")
                .find("version 18446744073709551615"),
            std::string::npos);
}

TEST(SessionFile, AnUnknownEventKindIsSkippedAndCounted) {
  const SessionFile file =
      parse_session(session_with(R"({"event":"from_the_future","x":1},{"event":"memory","host_bytes":8})"), "s.json");
  EXPECT_EQ(file.run.skipped_events, 1u);
  EXPECT_EQ(file.run.peak_host_bytes, 8u);
}

TEST(SessionFile, DeepNestingIsRefusedWithoutRecursion) {
  const std::size_t depth = 1000000;
  const std::string deep =
      session_with(R"({"event":"memory","x":)" + std::string(depth, '[') + std::string(depth, ']') + "}");
  EXPECT_NE(refusal(deep).find("nested deeper than"), std::string::npos);
}
