// Triage: error texts from the explanation pages, generalised over their variable parts.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "diagnose/triage.h"

using namespace blasscope::core;

namespace {

const TriageMatch* find(const std::vector<TriageMatch>& matches, const std::string& id) {
  const auto it = std::find_if(matches.begin(), matches.end(), [&](const auto& m) { return m.id == id; });
  return it == matches.end() ? nullptr : &*it;
}

std::string value(const TriageMatch& m, const std::string& name) {
  for (const auto& [n, v] : m.values) {
    if (n == name) return v;
  }
  return "(none)";
}

std::string top(const std::string& text) {
  const auto matches = triage_text(text);
  return matches.empty() ? "(nothing)" : matches.front().id;
}

// Whether page `id` lists a text of the same form as `text` (same words, any spacing/case).
bool lists_same_text(const std::string& id, const std::string& text) {
  const auto key = compile_error_pattern(text);
  for (const auto& other : seen_as_error_texts(*find_explanation(id))) {
    const auto other_key = compile_error_pattern(other);
    if (key && other_key && pattern_key(*key) == pattern_key(*other_key)) return true;
  }
  return false;
}

}  // namespace

// The pages are the one source of truth: each error text they list must lead back to its page,
// ranked first. The only exception is a text listed, in the same form, on several pages
// ("Segmentation fault (core dumped)", "SVD did not converge"): the text alone cannot tell
// them apart, so those pages tie and the catalogue order decides; every page ranked above the
// own page must then list that same text too.
TEST(Triage, EverySeenAsTextLeadsToItsOwnPage) {
  std::size_t texts = 0;
  for (const auto& page : explanation_catalogue()) {
    for (const auto& text : seen_as_error_texts(page)) {
      ++texts;
      const auto matches = triage_text(text);
      const TriageMatch* own = find(matches, page.id);
      ASSERT_NE(own, nullptr) << page.id << ": `" << text << "` does not match its own page";
      for (const auto& m : matches) {
        if (m.id == page.id) break;
        EXPECT_TRUE(lists_same_text(m.id, text))
            << page.id << ": `" << text << "` ranks " << m.id << " (" << m.score << ") above its own page ("
            << own->score << ") although " << m.id << " does not list it";
      }
    }
  }
  EXPECT_GT(texts, 60u);
}

TEST(Triage, SeenAsTextsAreTheBacktickedTextsNotNotesOrProse) {
  for (const auto& page : explanation_catalogue()) {
    for (const auto& text : seen_as_error_texts(page)) {
      EXPECT_FALSE(text.starts_with("(no error message")) << page.id;
      EXPECT_EQ(text.find('`'), std::string::npos) << page.id << ": " << text;
    }
  }
  const auto hang = seen_as_error_texts(*find_explanation("kernel-hang"));
  EXPECT_NE(std::find(hang.begin(), hang.end(), "KeyboardInterrupt"), hang.end());
  EXPECT_TRUE(std::none_of(hang.begin(), hang.end(), [](const auto& t) { return t.starts_with("a training step"); }));
  EXPECT_TRUE(seen_as_error_texts(*find_explanation("subnormal-values")).empty());
}

TEST(Triage, AnXerblaLineGeneralisesToAnyRoutineAndParameter) {
  // Listed as " ** On entry to DLASCL parameter number  4 had an illegal value" and DGEMM 8.
  const auto matches = triage_text("On entry to SGESDD parameter number 12 had an illegal value");
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches.front().id, "illegal-argument");
  EXPECT_EQ(value(matches.front(), "routine"), "SGESDD");
  EXPECT_EQ(value(matches.front(), "parameter"), "12");
  // A routine no page names: the general page (illegal-argument) wins over DLASCL's.
  EXPECT_EQ(top(" ** On entry to ZGEQRF parameter number  7 had an illegal value"), "illegal-argument");
  // DLASCL with parameter 4, in any precision and spelling, is the NaN-norm page.
  EXPECT_EQ(top("on   ENTRY to slascl PARAMETER number 4 had an illegal value"), "dlascl-invalid-cfrom");
  EXPECT_EQ(top("Intel MKL ERROR: Parameter 4 was incorrect on entry to SLASCL."), "dlascl-invalid-cfrom");
  EXPECT_EQ(top("Intel MKL ERROR: Parameter 6 was incorrect on entry to DGELSD."), "illegal-argument");
}

TEST(Triage, StatusShapesAndDtypesAreReadFromTheLine) {
  auto matches = triage_text("terminate called: CUBLAS_STATUS_EXECUTION_FAILED");
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches.front().id, "cublas-error");
  EXPECT_EQ(value(matches.front(), "status"), "CUBLAS_STATUS_EXECUTION_FAILED");

  matches = triage_text(
      "ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
      "(n?,k),(k,m?)->(n?,m?) (size 3 is different from 4)");
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches.front().id, "shape-mismatch");
  EXPECT_EQ(value(matches.front(), "operand"), "1");
  EXPECT_EQ(value(matches.front(), "dimension"), "0");
  EXPECT_EQ(value(matches.front(), "size"), "3");
  EXPECT_EQ(value(matches.front(), "size_2"), "4");
  EXPECT_EQ(value(matches.front(), "exception"), "ValueError");

  matches = triage_text("RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x128 and 256x10)");
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(value(matches.front(), "shape"), "64x128");
  EXPECT_EQ(value(matches.front(), "shape_2"), "256x10");

  matches = triage_text("RuntimeError: expected scalar type Half but found BFloat16");
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches.front().id, "dtype-mismatch");
  EXPECT_EQ(value(matches.front(), "dtype"), "Half");
  EXPECT_EQ(value(matches.front(), "dtype_2"), "BFloat16");

  matches = triage_text(
      "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 512. MiB for an array with "
      "shape (8192, 8192) and data type float64");
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches.front().id, "out-of-memory");
  EXPECT_EQ(value(matches.front(), "shape"), "(8192, 8192)");
}

TEST(Triage, LinesThatOnlyShareCommonWordsDoNotMatch) {
  for (const char* prose :
       {"the parameter number was entered and had an illegal value for us",
        "Segmentation of the fault lines is dumped in the core module", "Killed 3 zombie processes",
        "SVD converged after 12 iterations", "matmul: all input operands have the right core dimensions",
        "loss is decreasing nicely", "error: 0 warnings, 0 errors", ""}) {
    EXPECT_EQ(top(prose), "(nothing)") << prose;
  }
}

TEST(Triage, TheMostSpecificLineRanksFirst) {
  const std::string log =
      "epoch 3 step 120\n"
      "numpy.linalg.LinAlgError: SVD did not converge\n"
      " ** On entry to DLASCL parameter number  4 had an illegal value\n";
  const auto matches = triage_text(log);
  ASSERT_GE(matches.size(), 2u);
  EXPECT_EQ(matches.front().id, "dlascl-invalid-cfrom");
  EXPECT_EQ(matches.front().line_number, 3u);
  const TriageMatch* generic = find(matches, "lapack-failed");
  ASSERT_NE(generic, nullptr);
  EXPECT_GT(matches.front().score, generic->score);
}

TEST(Triage, ReadsColouredPiecewiseAndHugeInputInBoundedWindows) {
  EXPECT_EQ(top("\x1b[1;31mRuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)\x1b[0m"),
            "shape-mismatch");
  EXPECT_EQ(top("\xff\xfe garbage \xc3( RuntimeWarning: overflow encountered in cast \x80"), "cast-overflow");

  const std::string log = "x\r\nprogress 10%\rprogress 100%\r\nRuntimeWarning: overflow encountered in cast\n";
  Triage piecewise;
  for (const char c : log) piecewise.feed(std::string_view(&c, 1));
  const auto matches = piecewise.finish();
  ASSERT_EQ(matches.size(), triage_text(log).size());
  EXPECT_EQ(matches.front().id, "cast-overflow");
  EXPECT_EQ(matches.front().line_number, 3u);

  // One 20 MB line with the error text in the middle: found, and shown cut around it.
  std::string line(10'000'000, 'a');
  line += " ValueError: On entry to DLASCL parameter number 4 had an illegal value ";
  line += std::string(10'000'000, 'b');
  const auto long_matches = triage_text(line);
  ASSERT_FALSE(long_matches.empty());
  EXPECT_EQ(long_matches.front().id, "dlascl-invalid-cfrom");
  EXPECT_LT(long_matches.front().line.size(), 600u);
  EXPECT_NE(long_matches.front().line.find("DLASCL"), std::string::npos);
}

TEST(Triage, BinaryDataIsToldApartFromText) {
  EXPECT_TRUE(
      looks_binary(std::string("\x7f"
                               "ELF\x02\x01\x01\0\0\0",
                               10)));
  EXPECT_TRUE(looks_binary("\x01\x02\x03\x04\x05\x06 abc"));
  EXPECT_FALSE(looks_binary("Traceback (most recent call last):\n\tFile \"x.py\"\r\n\x1b[31mred\x1b[0m caf\xc3\xa9\n"));
}

TEST(Triage, TheReproducingScenarioFollowsTheLine) {
  EXPECT_EQ(reproducing_scenario("dlascl-invalid-cfrom", "SVD did not converge in Linear Least Squares"), "nan-lstsq");
  EXPECT_EQ(reproducing_scenario("dlascl-invalid-cfrom", "numpy.linalg.LinAlgError: SVD did not converge"), "nan-svd");
  EXPECT_EQ(reproducing_scenario("illegal-argument", "On entry to DGEMM parameter number 8"), "rowmajor-lda");
  EXPECT_EQ(reproducing_scenario("kernel-hang", "KeyboardInterrupt"), "");
  const auto matches = triage_text("RuntimeWarning: overflow encountered in cast");
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches.front().scenario, "float16-cast-overflow");
}
