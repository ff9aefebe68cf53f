#include "record/session_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>

#include "record/recording_json.h"
#include "record/routine_names.h"

namespace blasscope::record {
namespace {

constexpr std::string_view kHead = R"({"format":"blasscope-session","version":1,"kind":"recording","calls":[)";
constexpr std::size_t kFlushAt = 1u << 18;  // write() in pieces of about 256 KB

// Appends into a buffer the caller sized for one call: no bounds checks per character.
class CallText {
 public:
  explicit CallText(char* out) : m_p(out) {}
  char* end() const { return m_p; }

  void raw(std::string_view s) {
    std::memcpy(m_p, s.data(), s.size());
    m_p += s.size();
  }
  void key(std::string_view k) {
    *m_p++ = m_first ? '{' : ',';
    m_first = false;
    *m_p++ = '"';
    raw(k);
    *m_p++ = '"';
    *m_p++ = ':';
  }
  template <typename T>
  void number(std::string_view k, T value) {
    key(k);
    m_p = std::to_chars(m_p, m_p + 32, value).ptr;
  }
  // The exact decimal of ns / 10^9 ("0.00000006" rather than 6.000000000000001e-08).
  void seconds(std::string_view k, std::uint64_t ns) {
    key(k);
    m_p = std::to_chars(m_p, m_p + 24, ns / 1000000000u).ptr;
    auto fraction = static_cast<std::uint32_t>(ns % 1000000000u);
    if (!fraction) return;
    // The nine digits go straight into place (a copy of a digit buffer written a byte at a time
    // stalled on store forwarding), then the trailing zeros are dropped.
    *m_p++ = '.';
    for (int i = 8; i >= 0; --i, fraction /= 10) m_p[i] = static_cast<char>('0' + fraction % 10);
    int length = 9;
    while (m_p[length - 1] == '0') --length;
    m_p += length;
  }
  // JSON has no NaN or Inf, and a NaN CFROM is the finding: they are written as strings.
  void real(std::string_view k, double value) {
    // Nearly every alpha and beta is a small integer (1, -1): written as one, the same text the
    // shortest form gives (below 10^4 the exponent form is never shorter), without its search.
    if (value > -1e4 && value < 1e4 && value == static_cast<double>(static_cast<int>(value))) {
      return number(k, static_cast<int>(value));
    }
    if (std::isfinite(value)) return number(k, value);
    key(k);
    *m_p++ = '"';
    raw(std::isnan(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity");
    *m_p++ = '"';
  }
  // Only letters, digits, '_' and ' ' are kept: nothing in a call needs escaping.
  void text(std::string_view k, std::string_view value) {
    key(k);
    *m_p++ = '"';
    for (const char c : value) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ' ') *m_p++ = c;
    }
    *m_p++ = '"';
  }
  void flag(std::string_view k) {
    key(k);
    raw("true");
  }
  void close() {
    if (m_first) *m_p++ = '{';
    *m_p++ = '}';
  }
  // Goes on after a nested object written by another CallText at end().
  void resume_at(char* p) { m_p = p; }

 private:
  char* m_p;
  bool m_first = true;
};

// Every routine's `,"routine":NAME,"dtype":DTYPE` text, made once: a call is written without
// building or filtering a string.
std::string_view names_of(Routine routine, Precision precision) {
  static const auto* const kNames = [] {
    auto* table = new std::array<std::array<std::string, kPrecisionCount>, kRoutineCount>;
    char text[kMaxCallText];
    for (std::uint32_t r = 0; r < kRoutineCount; ++r) {
      for (std::uint32_t p = 0; p < kPrecisionCount; ++p) {
        const auto routine = static_cast<Routine>(r);
        const auto precision = static_cast<Precision>(p);
        CallText w(text);
        w.key("");  // the names never come first: the table holds what follows a key
        w.text("routine", routine_name(routine, precision));
        w.text("dtype", precision_dtype(precision, routine));
        (*table)[r][p].assign(text + 4, w.end());  // without the placeholder's `{"":`
      }
    }
    return table;
  }();
  const auto r = static_cast<std::uint32_t>(routine), p = static_cast<std::uint32_t>(precision);
  return r < kRoutineCount && p < kPrecisionCount ? std::string_view((*kNames)[r][p])
                                                  : std::string_view(R"(,"routine":"unknown","dtype":"")");
}

}  // namespace

char* write_call_text(char* out, const CallRecord& c, std::uint64_t seq, std::uint64_t start_ns) {
  CallText w(out);
  w.number("seq", seq);
  w.number("id", c.id);
  w.number("pid", c.pid);
  w.number("thread", c.tid);
  if (has_data_type_argument(c.routine) && c.side_uplo) {
    w.text("routine", routine_name(c.routine, c.precision));
    w.text("dtype", call_dtype(c));
  } else {
    w.raw(names_of(c.routine, c.precision));
  }
  w.seconds("start", c.start_ns > start_ns ? c.start_ns - start_ns : 0);
  w.seconds("seconds", c.duration_ns);
  if (c.parent) w.number("parent", c.parent);
  if (c.routine == Routine::CudaMalloc) {
    w.number("bytes", malloc_bytes(c));
  } else {
    if (c.m) w.number("m", c.m);
    if (c.n) w.number("n", c.n);
  }
  if (c.k) w.number("k", c.k);
  if (c.lda) w.number("lda", c.lda);
  if (c.ldb) w.number("ldb", c.ldb);
  if (c.ldc) w.number("ldc", c.ldc);
  if (c.side_uplo && std::isalpha(c.side_uplo) && !has_data_type_argument(c.routine)) {
    const char letter = static_cast<char>(c.side_uplo);
    w.text("char", {&letter, 1});
  }
  if (c.alpha != 0) w.real("alpha", c.alpha);
  if (c.beta != 0) w.real("beta", c.beta);
  if (c.flags & kHasInfo) w.number("info", c.info);
  if (c.flags & kHasStatus) w.number("status", c.info);
  if (c.flags & kCblas) w.flag("cblas");
  if (c.flags & kRowMajor) w.flag("row_major");
  if (c.flags & kTransA) w.flag("trans_a");
  if (c.flags & kTransB) w.flag("trans_b");
  if (c.flags & kConjA) w.flag("conj_a");
  if (c.flags & kConjB) w.flag("conj_b");
  if (c.flags & kValuesChecked) w.flag("values_checked");
  if (c.flags & kCaptured) w.flag("captured");
  if (c.flags & kWorkspaceQuery) w.flag("workspace_query");
  if (c.flags & kSomeEigenvalues) w.flag("some_eigenvalues");
  if (c.flags & kIncomplete) w.flag("incomplete");
  if (c.flags & kLapacke) w.flag("lapacke");
  if (c.align_a) w.number("align_a", alignment_bytes(c.align_a));
  if (c.align_b) w.number("align_b", alignment_bytes(c.align_b));
  if (c.align_c) w.number("align_c", alignment_bytes(c.align_c));
  if (c.unlisted) w.number("unlisted", c.unlisted);
  if (has_xerbla(c)) {
    w.key("xerbla");
    CallText x(w.end());
    x.text("routine", {c.xerbla_routine, strnlen(c.xerbla_routine, sizeof c.xerbla_routine)});
    x.number("parameter", c.xerbla_parameter);
    x.close();
    w.resume_at(x.end());
  }
  if (c.input_nan) w.number("input_nan", c.input_nan);
  if (c.input_inf) w.number("input_inf", c.input_inf);
  if (c.output_nan) w.number("output_nan", c.output_nan);
  if (c.output_inf) w.number("output_inf", c.output_inf);
  w.close();
  return w.end();
}

std::string_view session_head() {
  return kHead;
}

void append_calls_text(std::string& out, std::span<const CallRecord> calls, std::uint64_t first_seq,
                       std::uint64_t start_ns) {
  char text[kMaxCallText + 2];
  for (std::size_t i = 0; i < calls.size(); ++i) {
    char* at = text;
    if (first_seq + i) *at++ = ',';
    *at++ = '\n';
    out.append(text, write_call_text(at, calls[i], first_seq + i, start_ns));
  }
}

std::string session_tail(const Recording& r) {
  nlohmann::json header = to_json(r, false);
  for (const char* key : {"format", "version", "kind", "calls"}) header.erase(key);
  std::string text = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text.front() = ',';  // the header's own '{': it continues the object after the calls
  return "\n]" + text + "\n";
}

namespace {

// The mode a file made with open(..., 0666) would get: mkstemp makes 0600.
mode_t created_file_mode() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  unsigned mask = 022;
  char line[128];
  while (status && std::fgets(line, sizeof line, status)) {
    if (std::sscanf(line, "Umask: %o", &mask) == 1) break;
  }
  if (status) std::fclose(status);
  return static_cast<mode_t>(0666 & ~mask);
}

}  // namespace

int inherited_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!path.starts_with(prefix)) continue;
    int fd = -1;
    const char* digits = path.data() + prefix.size();
    const auto [end, error] = std::from_chars(digits, path.data() + path.size(), fd);
    if (error == std::errc() && end == path.data() + path.size() && end != digits) return fd;
  }
  return -1;
}

bool session_written_into(const std::string& path) {
  struct stat st;
  return inherited_descriptor(path) >= 0 ||
         (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

namespace {

// A link the kernel would not follow on open (fs.protected_symlinks): in a sticky folder anyone
// may write to (/tmp), owned by neither this user nor the folder's owner. Another user's link
// there must not make the session replace a file of ours.
bool protected_link(const std::filesystem::path& link) {
  struct stat folder, self;
  const std::filesystem::path parent = link.parent_path().empty() ? "." : link.parent_path();
  if (::stat(parent.c_str(), &folder) != 0 || ::lstat(link.c_str(), &self) != 0) return true;
  const bool shared_sticky = (folder.st_mode & S_ISVTX) && (folder.st_mode & S_IWOTH);
  return shared_sticky && self.st_uid != ::geteuid() && self.st_uid != folder.st_uid;
}

// Where a session named `path` is renamed to: the file a symbolic link names (a rename over the
// link would replace the link; a protected link is replaced, as open() would refuse it), or ""
// where the session must be copied into what the path opens instead: a device, a pipe or a
// terminal, anything reached through /proc, or a descriptor it names (/dev/stdout).
std::string rename_target(const std::string& path) {
  namespace fs = std::filesystem;
  if (inherited_descriptor(path) >= 0) return "";
  std::error_code error;
  fs::path at = path;
  for (int links = 0; links < 40 && fs::is_symlink(fs::symlink_status(at, error)); ++links) {
    if (protected_link(at)) return at.string();
    const fs::path target = fs::read_symlink(at, error);
    if (error) return "";
    at = target.is_absolute() ? target : at.parent_path() / target;
    if (at.lexically_normal().string().starts_with("/proc/")) return "";
  }
  struct stat st;
  if (::stat(at.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return "";
  return at.string();
}

std::string temporary_directory() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

}  // namespace

PartFile::PartFile(std::string path) : m_path(std::move(path)), m_target(rename_target(m_path)) {
  // A name of its own: two recorders given the same --output must not write into one file.
  const std::string stem = m_target.empty() ? temporary_directory() + "/blasscope-session" : m_target;
  m_part = stem + ".XXXXXX.part";
  m_fd = ::mkostemps(m_part.data(), 5, O_CLOEXEC);
  if (m_fd < 0 && errno == ENOENT && !m_target.empty()) {
    // Its folder went while the program ran (the recorder made it at the start): made again.
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(stem).parent_path(), ignored);
    m_part = stem + ".XXXXXX.part";
    m_fd = ::mkostemps(m_part.data(), 5, O_CLOEXEC);
  }
  if (m_fd < 0 && !m_target.empty()) {
    // Its folder cannot be written (or made again) now: the session is written into the
    // temporary folder instead, kept there and named when it is committed.
    const int error = errno;
    m_part = temporary_directory() + "/blasscope-session.XXXXXX.part";
    m_fd = ::mkostemps(m_part.data(), 5, O_CLOEXEC);
    if (m_fd >= 0) {
      m_error = "cannot write " + stem + ".part: " + std::strerror(error);
      m_kept = true;
      return;
    }
    errno = error;
  }
  if (m_fd < 0) {
    m_error = "cannot write " + stem + ".part: " + std::strerror(errno);
    m_failed.store(true);
    m_part.clear();
    return;
  }
  // A copy in the temporary folder stays the user's own (mkostemps makes 0600).
  if (!m_target.empty()) ::fchmod(m_fd, created_file_mode());
}

PartFile::~PartFile() {
  if (m_fd >= 0) ::close(m_fd);
  if (!m_committed && !m_part.empty()) ::unlink(m_part.c_str());
}

int write_all_at(int fd, const char* data, std::size_t size, std::uint64_t offset) {
  for (std::size_t done = 0; done < size;) {
    const ssize_t wrote = ::pwrite(fd, data + done, size - done, static_cast<off_t>(offset + done));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return wrote < 0 ? errno : ENOSPC;
    done += static_cast<std::size_t>(wrote);
  }
  return 0;
}

bool PartFile::write_at(const char* data, std::size_t size, std::uint64_t offset) {
  if (m_fd < 0 || m_failed.load()) return false;
  if (const int error = write_all_at(m_fd, data, size, offset)) {
    const std::lock_guard lock(m_error_lock);
    if (m_error.empty()) m_error = "cannot write " + m_part + ": " + std::strerror(error);
    m_failed.store(true);
  }
  return !m_failed.load();
}

namespace {
// A new part file made from `pattern` (ending in XXXXXX.part) holding all that `from` holds:
// 0 and its name in `made`, or the error number.
int copy_into_new_part(int from, std::string pattern, std::string& made) {
  const int fd = ::mkostemps(pattern.data(), 5, O_CLOEXEC);
  if (fd < 0) return errno;
  ::fchmod(fd, created_file_mode());
  char buffer[1 << 16];
  int error = 0;
  for (std::uint64_t offset = 0;;) {
    const ssize_t got = ::pread(from, buffer, sizeof buffer, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) error = errno;
    if (got <= 0) break;
    if ((error = write_all_at(fd, buffer, static_cast<std::size_t>(got), offset)) != 0) break;
    offset += static_cast<std::uint64_t>(got);
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(pattern.c_str());
    return error;
  }
  made = pattern;
  return 0;
}
}  // namespace

// The part file's folder was removed while it was written (the program deleted its output
// folder): the file has no name left, but its descriptor still reads it whole. It is copied into
// a new part file in the folder made again, or where that cannot be, into the temporary folder,
// where it is kept and named (the error says so).
void PartFile::relink_if_removed() {
  struct stat st;
  if (m_target.empty() || m_fd < 0 || ::stat(m_part.c_str(), &st) == 0 || (errno != ENOENT && errno != ENOTDIR)) return;
  std::error_code ignored;
  const std::filesystem::path folder = std::filesystem::path(m_target).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ignored);
  std::string made;
  const int error = copy_into_new_part(m_fd, m_target + ".XXXXXX.part", made);
  if (error == 0) {
    ::close(m_fd);
    m_fd = -1;
    m_part = made;
    return;
  }
  m_error = "cannot write " + m_target + ": its folder was removed while the program ran and cannot be made again (" +
            std::strerror(error) + ")";
  if (copy_into_new_part(m_fd, temporary_directory() + "/blasscope-session.XXXXXX.part", made) == 0) {
    m_part = made;
    m_kept = true;
  }
}

void PartFile::commit() {
  if (m_error.empty()) relink_if_removed();
  if (m_fd >= 0 && ::close(m_fd) != 0 && m_error.empty())
    m_error = "cannot write " + m_part + ": " + std::strerror(errno);
  m_fd = -1;
  if (m_target.empty()) {
    if (m_error.empty()) copy_into_path();
    if (!m_error.empty()) {
      // The only whole copy of the session: kept, and named.
      m_committed = true;
      throw std::runtime_error(m_error + "; the session is kept in " + m_part);
    }
    ::unlink(m_part.c_str());
    m_committed = true;
    return;
  }
  // A file already under the name goes first: ext4 makes a rename over an existing file write
  // the new one's data out at once (auto_da_alloc), tens of milliseconds for a big session.
  if (m_error.empty() && ::unlink(m_target.c_str()) != 0 && errno != ENOENT) {
    m_error = "cannot replace " + m_target + ": " + std::strerror(errno);
  }
  if (m_error.empty() && ::rename(m_part.c_str(), m_target.c_str()) != 0) {
    m_error = "cannot rename " + m_part + " to " + m_target + ": " + std::strerror(errno);
  }
  if (m_kept && !m_failed.load()) {
    m_committed = true;  // the only whole copy: not removed
    throw std::runtime_error(m_error + "; the session is kept in " + m_part);
  }
  if (!m_error.empty()) throw std::runtime_error(m_error);
  m_committed = true;
}

// The whole part file written, in order, into what the path opens (a pipe takes no offsets).
void PartFile::copy_into_path() {
  const int from = ::open(m_part.c_str(), O_RDONLY | O_CLOEXEC);
  // A descriptor it names is written through as it is (its offset, O_APPEND): reopening
  // /proc/self/fd/1 with O_TRUNC would empty the file stdout was sent to, the program's output too.
  const int inherited = inherited_descriptor(m_path);
  struct stat st;
  const bool regular = ::stat(m_path.c_str(), &st) == 0 && S_ISREG(st.st_mode);  // through another /proc link
  const int to = inherited >= 0 ? ::fcntl(inherited, F_DUPFD_CLOEXEC, 3)
                                : ::open(m_path.c_str(), O_WRONLY | O_CLOEXEC | (regular ? O_TRUNC : 0));
  if (from < 0 || to < 0) {
    m_error = "cannot write " + m_path + ": " + std::strerror(errno);
  } else {
    char buffer[1 << 16];
    for (;;) {
      const ssize_t got = ::read(from, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      for (ssize_t done = 0; done < got;) {
        const ssize_t wrote = ::write(to, buffer + done, static_cast<std::size_t>(got - done));
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
          m_error = "cannot write " + m_path + ": " + std::strerror(wrote < 0 ? errno : ENOSPC);
          break;
        }
        done += wrote;
      }
      if (!m_error.empty()) break;
    }
  }
  if (from >= 0) ::close(from);
  if (to >= 0 && ::close(to) != 0 && m_error.empty()) m_error = "cannot write " + m_path + ": " + std::strerror(errno);
}

SessionWriter::SessionWriter(std::string path) : m_file(std::move(path)), m_buffer(kHead) {}

void SessionWriter::flush() {
  m_file.write_at(m_buffer.data(), m_buffer.size(), m_offset);
  m_offset += m_buffer.size();
  m_buffer.clear();
}

void SessionWriter::append(std::span<const CallRecord> calls, std::uint64_t start_ns) {
  constexpr std::size_t kPiece = 2048;  // calls formatted at a time: about 400 KB of text
  for (std::size_t done = 0; done < calls.size(); done += kPiece) {
    const auto piece = calls.subspan(done, std::min(kPiece, calls.size() - done));
    append_calls_text(m_buffer, piece, m_seq, start_ns);
    m_seq += piece.size();
    if (m_buffer.size() >= kFlushAt) flush();
  }
}

void SessionWriter::finish(const Recording& recording) {
  m_buffer += session_tail(recording);
  flush();
  m_file.commit();
}

std::string session_text(const Recording& r) {
  std::string text(kHead);
  append_calls_text(text, r.calls, 0, r.start_ns);
  return text + session_tail(r);
}

}  // namespace blasscope::record
