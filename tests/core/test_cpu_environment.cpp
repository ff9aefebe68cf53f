// The machine's description: the clock the peak estimate uses must not depend on one short,
// noisy measurement.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "kernels/boot_cache.h"
#include "kernels/cpu_environment.h"

using namespace blasscope::core;

namespace {

class ClockCache : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("blasscope-clock-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::string file() const { return (m_dir / "blasscope" / "clock").string(); }
  std::filesystem::path m_dir;
};

TEST_F(ClockCache, TheFastestClockOfThisBootIsKept) {
  EXPECT_DOUBLE_EQ(fastest_clock_ghz(2.0, file(), "boot-a"), 2.0);  // the folder is made
  EXPECT_DOUBLE_EQ(fastest_clock_ghz(1.9, file(), "boot-a"), 2.0) << "a core caught at a lower clock";
  EXPECT_DOUBLE_EQ(fastest_clock_ghz(3.7, file(), "boot-a"), 3.7);
  EXPECT_DOUBLE_EQ(fastest_clock_ghz(2.0, file(), "boot-a"), 3.7);
  EXPECT_DOUBLE_EQ(fastest_clock_ghz(2.5, file(), "boot-b"), 2.5) << "another boot may be another machine";
  EXPECT_DOUBLE_EQ(fastest_clock_ghz(2.4, file(), "boot-b"), 2.5);
  // Read back exactly as measured: a rounded copy would rank below the measurement it came from.
  const double measured = 3.6943738261937261;
  EXPECT_EQ(fastest_clock_ghz(measured, file(), "boot-c"), measured);
  EXPECT_EQ(fastest_clock_ghz(1.0, file(), "boot-c"), measured);
  EXPECT_EQ(cached_clock_ghz(file(), "boot-c"), measured);
  EXPECT_EQ(cached_clock_ghz(file(), "boot-d"), 0) << "nothing known of this boot: measured in full";
}

TEST_F(ClockCache, AFileThatCannotBeReadOrWrittenIsIgnored) {
  std::filesystem::create_directories(m_dir / "blasscope");
  for (const char* text : {"", "boot-a", "boot-a nan", "boot-a -3", "boot-a 1e300", "garbage 2.0"}) {
    std::ofstream(file()) << text;
    EXPECT_DOUBLE_EQ(fastest_clock_ghz(2.0, file(), "boot-a"), 2.0) << text;
    std::filesystem::remove(file());
  }
  std::filesystem::create_directories(file());  // a folder where the file should be
  EXPECT_DOUBLE_EQ(fastest_clock_ghz(2.0, file(), "boot-a"), 2.0);
  EXPECT_DOUBLE_EQ(fastest_clock_ghz(2.0, "", "boot-a"), 2.0);
  EXPECT_DOUBLE_EQ(fastest_clock_ghz(2.0, file(), ""), 2.0);
}

TEST(NominalClock, TheClockAModelNameStatesIsRead) {
  EXPECT_DOUBLE_EQ(nominal_clock_ghz("Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz"), 2.6);
  EXPECT_DOUBLE_EQ(nominal_clock_ghz("Intel(R) Core(TM) i7-8700 CPU @3.20 GHz"), 3.2);
  EXPECT_DOUBLE_EQ(nominal_clock_ghz("Odd @ name @ 1.5GHz"), 1.5) << "the '@' that a clock follows";
  // No clock in the name (AMD's never state one): the kernel's current one, which is not negative.
  EXPECT_GE(nominal_clock_ghz("AMD EPYC"), 0.0);
  EXPECT_GE(nominal_clock_ghz("Broken @ 2.5 MHz"), 0.0);
  EXPECT_NE(nominal_clock_ghz("Broken @ 2.5 MHz"), 2.5) << "not GHz";
  for (const char* odd : {"Odd @ 0x2p0GHz", "Odd @ 1e400GHz", "Odd @ 250GHz", "Ends with @"}) {
    const double ghz = nominal_clock_ghz(odd);
    EXPECT_TRUE(ghz >= 0 && ghz < 100) << odd << ": " << ghz;
    EXPECT_NE(ghz, 2.0) << odd;
  }
}

TEST_F(ClockCache, AFactIsReadBackOnlyForTheBootItWasWrittenFor) {
  const std::string tsc = (m_dir / "blasscope" / "tsc").string();
  EXPECT_FALSE(read_boot_fact(tsc, "boot-a")) << "nothing written yet";
  EXPECT_TRUE(write_boot_fact(tsc, "boot-a", "same"));
  EXPECT_EQ(read_boot_fact(tsc, "boot-a").value_or(""), "same");
  EXPECT_FALSE(read_boot_fact(tsc, "boot-b")) << "another boot may be another machine";
  EXPECT_TRUE(write_boot_fact(tsc, "boot-b", "differs"));
  EXPECT_EQ(read_boot_fact(tsc, "boot-b").value_or(""), "differs");
  EXPECT_FALSE(read_boot_fact(tsc, "boot-a")) << "one boot's fact at a time";
  EXPECT_FALSE(write_boot_fact("", "boot-a", "same"));
  EXPECT_FALSE(write_boot_fact(tsc, "", "same"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(m_dir / "blasscope"), {}), 1) << "no temporary left";
}

TEST_F(ClockCache, TwoProbesOnOneBootNeverGiveALowerPeak) {
#if defined(__x86_64__)
  const char* before = std::getenv("XDG_CACHE_HOME");
  const std::string saved = before ? before : "";
  ::setenv("XDG_CACHE_HOME", m_dir.c_str(), 1);
  const CpuEnvironment first = probe_cpu_environment(), second = probe_cpu_environment();
  before ? ::setenv("XDG_CACHE_HOME", saved.c_str(), 1) : ::unsetenv("XDG_CACHE_HOME");
  ASSERT_GT(first.measured_ghz, 0);
  EXPECT_GE(second.measured_ghz, first.measured_ghz);
  EXPECT_GE(second.peak_gflops_fp64, first.peak_gflops_fp64);
  EXPECT_TRUE(std::filesystem::exists(file()));
#else
  GTEST_SKIP() << "the clock is measured on x86-64 only";
#endif
}

TEST_F(ClockCache, TheRecordersProbeTakesThisBootsKnownClockAsItIs) {
  const std::string boot = boot_id();
  if (boot.empty()) GTEST_SKIP() << "no boot id on this machine: nothing is cached";
  const char* before = std::getenv("XDG_CACHE_HOME");
  const std::string saved = before ? before : "";
  ::setenv("XDG_CACHE_HOME", m_dir.c_str(), 1);
  ASSERT_TRUE(write_boot_fact(file(), boot, "97.25"));  // no measurement gives exactly that
  const double known = fastest_clock_this_boot_ghz(ClockProbe::KnownIfAny);
  std::filesystem::remove(file());
  const double measured = fastest_clock_this_boot_ghz(ClockProbe::KnownIfAny);
  before ? ::setenv("XDG_CACHE_HOME", saved.c_str(), 1) : ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(known, 97.25);
  EXPECT_NE(measured, 97.25) << "nothing known: measured";
#if defined(__x86_64__)
  EXPECT_GT(measured, 0);
#endif
}

TEST(KernelMismatch, NamesTheVariableThatForcedTheSetOrSaysOpenBlasChoseIt) {
  const int haswell = corename_simd_level("Haswell"), prescott = corename_simd_level("Prescott");
  ASSERT_EQ(haswell, 2);
  ASSERT_EQ(prescott, 0);
  EXPECT_EQ(describe_kernel_mismatch("Haswell", haswell, 3, "HASWELL", true),
            "OpenBLAS runs Haswell kernels (AVX2) on a CPU with AVX-512, because OPENBLAS_CORETYPE=HASWELL");
  EXPECT_EQ(describe_kernel_mismatch("Prescott", prescott, 3, "", true),
            "OpenBLAS runs Prescott kernels (SSE) on a CPU with AVX-512, chosen by OpenBLAS itself "
            "(OPENBLAS_CORETYPE is not set)");
  // A variable naming another set did not choose this one (an unknown name is ignored).
  EXPECT_EQ(describe_kernel_mismatch("Prescott", prescott, 3, "Zen9", true),
            "OpenBLAS runs Prescott kernels (SSE) on a CPU with AVX-512, chosen by OpenBLAS itself "
            "(OPENBLAS_CORETYPE=Zen9 did not choose it)");
  // A build for one target has no choice to make, whatever the variable says.
  EXPECT_EQ(describe_kernel_mismatch("Haswell", haswell, 3, "Haswell", false),
            "OpenBLAS runs Haswell kernels (AVX2) on a CPU with AVX-512, the one set this OpenBLAS was built with "
            "(no DYNAMIC_ARCH)");
  EXPECT_EQ(describe_kernel_mismatch("SkylakeX", 3, 3, "", true), "") << "the CPU's own set";
  EXPECT_EQ(describe_kernel_mismatch("Zen", corename_simd_level("Zen"), 2, "", true), "") << "AVX2 kernels, AVX2 CPU";
  EXPECT_EQ(describe_kernel_mismatch("Unheard", -1, 3, "", true), "") << "an unknown set is not called older";
}

}  // namespace
