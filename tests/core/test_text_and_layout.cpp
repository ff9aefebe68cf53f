#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/tensor_findings.h"
#include "analysis/tensor_layout.h"
#include "io/input_error.h"
#include "io/text_file.h"
#include "report/inspect_text.h"
#include "report/markdown_html.h"
#include "test_files.h"

using namespace blasscope::core;

TEST(Layout, AlignmentIsTheLargestPowerOfTwoCappedAtAPage) {
  EXPECT_EQ(alignment_of(128), 128u);
  EXPECT_EQ(alignment_of(129), 1u);
  EXPECT_EQ(alignment_of(96), 32u);
  EXPECT_EQ(alignment_of(1 << 20), 4096u);
  EXPECT_EQ(alignment_of(0), 4096u);
}

TEST(Text, FormatHelpers) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(1ull << 30), "1.0 GiB");
  EXPECT_EQ(format_shape({}), "()");
  EXPECT_EQ(format_shape({3}), "(3,)");
  EXPECT_EQ(format_shape({2, 5}), "(2, 5)");
  EXPECT_EQ(format_scalar(Scalar::from_signed(-9)), "-9");
  EXPECT_EQ(format_scalar(Scalar::from_float(0.5)), "0.5");
  EXPECT_EQ(format_duration(0.01273), "12.73 ms");
  EXPECT_EQ(format_duration(42e-9), "42 ns");
  EXPECT_EQ(format_duration(0.99997e-3), "1 ms");  // rounds into the next unit, never "1000 us"
  EXPECT_EQ(format_duration(3600), "3600 s");
  EXPECT_EQ(format_duration(0), "0 s");
}

TEST(Text, PrintableUtf8KeepsValidTextAndEscapesTheRest) {
  EXPECT_EQ(printable_utf8("plain"), "plain");
  EXPECT_EQ(printable_utf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(printable_utf8("a\xFF"
                           "b"),
            "a\\xFFb");
  EXPECT_EQ(printable_utf8("\xC3"), "\\xC3");           // truncated sequence
  EXPECT_EQ(printable_utf8("\xC0\xAF"), "\\xC0\\xAF");  // overlong
}

TEST(Text, PrintableUtf8WrittenInPiecesIsTheWholeTextsNeverSplittingASequence) {
  // Sequences of 1 to 4 bytes, invalid bytes, and a run of stray continuation bytes, at every
  // offset of every piece size: the pieces together are printable_utf8 of the whole.
  const std::string text =
      "a\xC3\xA9"
      "b\xE2\x82\xAC\xF0\x9F\x98\x80\xFF\x80\x80\x80\x80z\xF0\x9F\x98\x80\x80\x80\xE2\x82\xAC\x80\xC3";
  for (std::size_t piece = 1; piece <= text.size() + 1; ++piece) {
    for (std::size_t from = 0; from < text.size(); ++from) {
      std::ostringstream out;
      write_printable_utf8(out, std::string_view(text).substr(from), piece);
      EXPECT_EQ(out.str(), printable_utf8(std::string_view(text).substr(from)))
          << "piece " << piece << " from " << from;
    }
  }
}

TEST(Findings, NonFiniteFindingGivesCountsAndTheIndexInNumPyTerms) {
  TensorInfo tensor;
  tensor.name = "w";
  tensor.dtype = DType::Float32;
  tensor.shape = {3, 4};
  tensor.order = MemoryOrder::Fortran;
  TensorStats stats;
  stats.nan = 2;
  stats.finite = 10;
  stats.first_nonfinite = 4;  // column-major: row 1, column 1
  auto findings = findings_for_values(tensor, stats);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "non-finite-input");
  EXPECT_EQ(findings[0].severity, Severity::Warning);
  EXPECT_NE(findings[0].message.find("2 NaN, 0 +Inf and 0 -Inf among 12 values"), std::string::npos);
  EXPECT_NE(findings[0].message.find("(1, 1)"), std::string::npos);
  tensor.order = MemoryOrder::C;
  findings = findings_for_values(tensor, stats);
  EXPECT_NE(findings[0].message.find("(1, 0)"), std::string::npos);
}

TEST(Findings, SubnormalFindingAndCleanTensors) {
  TensorInfo tensor;
  tensor.name = "x";
  tensor.dtype = DType::Float64;
  TensorStats stats;
  stats.finite = 5;
  EXPECT_TRUE(findings_for_values(tensor, stats).empty());
  stats.subnormal = 3;
  const auto findings = findings_for_values(tensor, stats);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "subnormal-values");
  EXPECT_NE(findings[0].message.find("3 subnormal values"), std::string::npos);
}

TEST(Text, WritingAFileReportsEveryWayItCanFail) {
  blasscope::test::TempDir dir;
  const std::string good = dir.file("report.md");
  write_text_file(good, "# report\n");
  std::ifstream in(good);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "# report");
  // A folder that does not exist, and a device that is always full (the error comes at the flush).
  for (const std::string& bad : {dir.file("missing/report.md"), std::string("/dev/full")}) {
    try {
      write_text_file(bad, std::string(1 << 16, 'x'));
      ADD_FAILURE() << "no error for " << bad;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(bad), std::string::npos) << error.what();
    }
  }
}

TEST(Text, ReadingAFileGivesEveryByteOrNamesWhyNot) {
  blasscope::test::TempDir dir;
  std::string content(300000, 'a');
  content[7] = '\0';  // text files may hold anything: nothing stops at a NUL
  content.back() = 'z';
  const std::string path = dir.file("session.json");
  write_text_file(path, content);
  EXPECT_EQ(read_text_file(path), content);
  write_text_file(path, "");
  EXPECT_EQ(read_text_file(path), "");
  // A device is read in pieces until it ends (its size says nothing).
  EXPECT_EQ(read_text_file("/dev/null"), "");
  const std::pair<std::string, std::string> bad[] = {{dir.file("missing.json"), "cannot open"},
                                                     {dir.path().string(), "cannot read"}};
  for (const auto& [file, says] : bad) {
    try {
      read_text_file(file);
      ADD_FAILURE() << "no error for " << file;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(says + " " + file), std::string::npos) << error.what();
    }
  }
}

TEST(MarkdownHtml, TablesListsAndParagraphsBecomeTheirElements) {
  const std::string html = markdown_to_html(
      "DLASCL scales **A** by `CTO/CFROM`;\nit refuses a NaN.\n\n"
      "| driver | input | INFO |\n|---|---|---|\n| gesdd | NaN in A | -4 |\n\n"
      "- **gesdd** checks the norm\n  itself.\n- gelsd <does> not\n");
  EXPECT_EQ(html,
            "<p>DLASCL scales <strong>A</strong> by <code>CTO/CFROM</code>; it refuses a NaN.</p>\n"
            "<table><tr><th>driver</th><th>input</th><th>INFO</th></tr>"
            "<tr><td>gesdd</td><td>NaN in A</td><td>-4</td></tr></table>\n"
            "<ul><li><strong>gesdd</strong> checks the norm itself.</li><li>gelsd &lt;does&gt; not</li></ul>\n");
}

TEST(MarkdownHtml, MarkersWithoutTheirEndAndHtmlStayText) {
  EXPECT_EQ(markdown_to_html("a `b and **c"), "<p>a `b and **c</p>\n");
  EXPECT_EQ(markdown_to_html("<script>x</script> & `<b>`"),
            "<p>&lt;script&gt;x&lt;/script&gt; &amp; <code>&lt;b&gt;</code></p>\n");
  EXPECT_EQ(markdown_to_html(""), "");
  EXPECT_EQ(markdown_to_html("|a|b|\n|c|d|"),
            "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>\n")
      << "no separator row: no header";
}
