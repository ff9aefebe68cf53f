#include "cli_triage.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "cli_usage.h"
#include "diagnose/lapack_meanings.h"
#include "diagnose/triage.h"
#include "io/input_error.h"
#include "report/inspect_json.h"
#include "text/format.h"
#include "text/json.h"

namespace blasscope::app {
namespace {

constexpr const char* kTriageUsage = "usage: blasscope-cli triage [FILE|-] [--json]\n";
// More than any log worth pasting; a larger file is read from its end, where errors are.
constexpr std::uint64_t kMaxInput = 256ull << 20;
constexpr std::size_t kChunk = 1 << 20;
constexpr std::size_t kExplained = 3;  // matches printed with their cause and fix

struct Input {
  std::uint64_t read = 0;
  std::string note;  // what was left unread, when something was
};

// Streams `in` into `triage`: at most kMaxInput bytes, binary data refused.
Input feed(std::istream& in, core::Triage& triage) {
  Input input;
  std::string chunk(kChunk, '\0');
  bool first = true;
  while (in && input.read < kMaxInput) {
    in.read(chunk.data(), static_cast<std::streamsize>(std::min<std::uint64_t>(kChunk, kMaxInput - input.read)));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0) break;
    const std::string_view piece(chunk.data(), n);
    if (first && core::looks_binary(piece)) {
      throw core::InputError(core::InputError::Kind::Unsupported,
                             "binary data (NUL or control bytes near the start), not a log or traceback");
    }
    first = false;
    triage.feed(piece);
    input.read += n;
  }
  if (in.bad())
    throw core::InputError(core::InputError::Kind::Unreadable, "read failed: " + std::string(std::strerror(errno)));
  if (input.read >= kMaxInput && in.peek() != std::char_traits<char>::eof())
    input.note = "stopped after the first " + core::format_bytes(kMaxInput) + "; pass the end of the log instead";
  return input;
}

Input read_file(const std::string& path, core::Triage& triage) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw core::InputError(core::InputError::Kind::Unreadable, "cannot open: " + std::string(std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw core::InputError(core::InputError::Kind::Unreadable, "a directory, not a log file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw core::InputError(core::InputError::Kind::Unreadable, "cannot open: " + std::string(std::strerror(errno)));
  std::string note;
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > kMaxInput) {
    in.seekg(static_cast<std::streamoff>(static_cast<std::uint64_t>(st.st_size) - kMaxInput));
    note = "the file holds " + core::format_bytes(static_cast<std::uint64_t>(st.st_size)) + "; read its last " +
           core::format_bytes(kMaxInput) + ", where errors usually are (line numbers count from there)";
  }
  Input input = feed(in, triage);
  if (!note.empty()) input.note = note;
  return input;
}

std::string values_text(const core::TriageMatch& m) {
  std::string text;
  for (const auto& [name, value] : m.values) text += (text.empty() ? "" : "  ") + name + "=" + value;
  return text;
}

void print_indented(std::ostream& out, const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out << (line.empty() ? "" : "     ") << line << '\n';
}

// "parameter 4 of DHSEQR is ILO" for a routine's XERBLA line, with where a LAPACK routine's bad
// value usually comes from; "" when the line names no routine and parameter this knows.
std::string named_argument(const core::TriageMatch& m) {
  std::string routine, parameter;
  for (const auto& [name, value] : m.values) {
    if (name == "routine") routine = value;
    if (name == "parameter") parameter = value;
  }
  if (routine.empty() || parameter.empty() || parameter.size() > 3 ||
      !std::all_of(parameter.begin(), parameter.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return "";
  }
  const std::string argument = core::xerbla_parameter_name(routine, std::stoi(parameter));
  if (argument.empty()) return "";
  std::string text = "parameter " + parameter + " of " + routine + " is " + argument;
  const std::string base = core::routine_base(routine);
  // Row-major CBLAS calls the Fortran GEMM with A and B (and M and N) swapped.
  static const std::map<std::string, std::string> kRowMajor = {{"M", "N"},     {"N", "M"}, {"A", "B"},
                                                               {"LDA", "ldb"}, {"B", "A"}, {"LDB", "lda"}};
  if (const auto swapped = kRowMajor.find(argument); base == "gemm" && swapped != kRowMajor.end()) {
    text += " (your " + swapped->second + " if you called row-major CBLAS)";
  }
  // What ?GEEV (NumPy's and SciPy's eig) calls inside: with NaN/Inf in its input, these refuse
  // values LAPACK computed from them (DGEBAL parameter 3, DGEHRD 2, DHSEQR 4).
  if (base == "gebal" || base == "gehrd" || base == "hseqr") {
    text += " (?GEEV, eig, calls " + routine +
            " inside: there the value was computed from eig's input, and NaN/Inf in it does this; "
            "`blasscope-cli record -- PROGRAM` names the call and its inputs)";
  }
  return text;
}

void print_text(const std::vector<core::TriageMatch>& matches, const std::string& source) {
  std::ostringstream out;
  out << matches.size() << (matches.size() == 1 ? " diagnosis matches " : " diagnoses match ") << source
      << ", most likely first.\n";
  for (std::size_t i = 0; i < matches.size(); ++i) {
    const auto& m = matches[i];
    out << '\n' << i + 1 << ". " << m.id << " (" << core::name(m.severity) << "): " << m.title << '\n';
    out << "   line " << m.line_number << ": " << m.line << '\n';
    if (!m.values.empty()) out << "   values: " << values_text(m) << '\n';
    const std::string argument = named_argument(m);
    if (!argument.empty()) out << "   " << argument << '\n';
    out << "   listed as: " << m.example << '\n';
    const core::Explanation* e = core::find_explanation(m.id);
    if (e && i < kExplained) {
      out << "   cause:\n";
      print_indented(out, e->cause);
      out << "   fix:\n";
      print_indented(out, e->fix);
    } else {
      out << "   explained by: blasscope-cli explain " << m.id << '\n';
    }
    if (!m.scenario.empty())
      out << "   reproduce: blasscope-cli run " << m.scenario << "   (or open '" << m.scenario << "' in the gallery)\n";
  }
  std::cout << core::printable_utf8(out.str());
}

nlohmann::json to_json(const std::vector<core::TriageMatch>& matches, const std::string& source,
                       const core::Triage& triage, const Input& input) {
  nlohmann::json out = {{"source", source}, {"lines", triage.lines()}, {"bytes_read", input.read}};
  out["note"] = input.note.empty() ? nlohmann::json() : nlohmann::json(input.note);
  out["matches"] = nlohmann::json::array();
  for (const auto& m : matches) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [name, value] : m.values) values[name] = value;
    out["matches"].push_back({{"id", m.id},
                              {"title", m.title},
                              {"severity", std::string(core::name(m.severity))},
                              {"line", m.line},
                              {"line_number", m.line_number},
                              {"values", values},
                              {"example", m.example},
                              {"scenario", m.scenario.empty() ? nlohmann::json() : nlohmann::json(m.scenario)},
                              {"score", std::round(m.score * 100) / 100}});
  }
  return out;
}

}  // namespace

int run_triage(const std::vector<std::string>& args) {
  bool json = false;
  std::string path;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      json = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kTriageUsage;
      return kExitOk;
    } else if (arg.starts_with("-") && arg != "-") {
      std::cerr << "error: triage: unknown option '" << arg << "'\n" << kTriageUsage;
      return kExitUsage;
    } else if (!path.empty()) {
      std::cerr << "error: triage: takes one FILE, got '" << path << "' and '" << arg << "'\n" << kTriageUsage;
      return kExitUsage;
    } else {
      path = arg;
    }
  }
  const bool from_stdin = path.empty() || path == "-";
  const std::string source = from_stdin ? "standard input" : path;
  constexpr auto kJsonErrors = nlohmann::json::error_handler_t::replace;
  core::Triage triage;
  Input input;
  try {
    if (from_stdin) {
      if (::isatty(STDIN_FILENO)) std::cerr << "Paste the error or traceback, then press Ctrl+D (or pass a FILE).\n";
      input = feed(std::cin, triage);
    } else {
      input = read_file(path, triage);
    }
  } catch (const core::InputError& error) {
    std::cerr << "error: " << core::printable_utf8(source) << ": " << core::printable_utf8(error.what()) << '\n';
    if (json) std::cout << core::error_json(error).dump(2, ' ', false, kJsonErrors) << '\n';
    return kExitRejected;
  }
  if (!input.note.empty()) std::cerr << "note: " << core::printable_utf8(source) << ": " << input.note << '\n';
  const auto matches = triage.finish();
  if (json) {
    std::cout << to_json(matches, source, triage, input).dump(2, ' ', false, kJsonErrors) << '\n';
  } else if (!matches.empty()) {
    print_text(matches, core::printable_utf8(source));
  }
  if (matches.empty()) {
    std::cerr << "No known BLAS/LAPACK, NumPy, SciPy, PyTorch, TensorFlow, cuBLAS or CUDA error text in "
              << core::printable_utf8(source) << " (" << triage.lines() << (triage.lines() == 1 ? " line" : " lines")
              << " read).\n"
              << "To see what really happens, record the program; every failing call is explained:\n"
              << "  blasscope-cli record -- YOUR COMMAND\n";
    return kExitFindings;
  }
  return kExitOk;
}

}  // namespace blasscope::app
