#include "capture.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "preload_runtime.h"

namespace blasscope::preload {
namespace {

const char* capture_root() {
  static const char* root = std::getenv(record::kCaptureDirEnv);
  return root && *root ? root : nullptr;
}

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// A NumPy .npy (format 1.0) of a packed matrix, Fortran order unless row_major; of `integers`
// (LAPACK's 32-bit ones), a vector of rows.
bool write_npy(const char* path, const void* data, std::int64_t rows, std::int64_t cols, std::size_t element_size,
               bool row_major, bool integers, bool complex) {
  char header[128];
  int length =
      integers
          ? std::snprintf(header, sizeof header, "{'descr': '<i%zu', 'fortran_order': False, 'shape': (%lld,), }",
                          element_size, static_cast<long long>(rows))
          : std::snprintf(header, sizeof header, "{'descr': '<%c%zu', 'fortran_order': %s, 'shape': (%lld, %lld), }",
                          complex ? 'c' : 'f', element_size, row_major ? "False" : "True", static_cast<long long>(rows),
                          static_cast<long long>(cols));
  const int total = ((10 + length + 1 + 63) / 64) * 64;  // magic, version, length, dict, '\n': 64-aligned
  while (10 + length + 1 < total) header[length++] = ' ';
  header[length++] = '\n';
  const unsigned char preamble[10] = {0x93,
                                      'N',
                                      'U',
                                      'M',
                                      'P',
                                      'Y',
                                      1,
                                      0,
                                      static_cast<unsigned char>(length & 0xff),
                                      static_cast<unsigned char>(length >> 8)};
  // Renamed into place when complete: a program killed mid-write leaves no truncated capture.
  char temporary[4096];
  if (std::snprintf(temporary, sizeof temporary, "%s.part", path) >= static_cast<int>(sizeof temporary)) return false;
  const int fd = ::open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool ok = write_all(fd, preamble, sizeof preamble) && write_all(fd, header, static_cast<std::size_t>(length)) &&
                  write_all(fd, data, static_cast<std::size_t>(rows * cols) * element_size);
  if (::close(fd) != 0 || !ok || std::rename(temporary, path) != 0) {
    ::unlink(temporary);
    return false;
  }
  return true;
}

bool write_text(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool ok = write_all(fd, text, std::strlen(text));
  return ::close(fd) == 0 && ok;
}

// What captures of calls not expected to fail (--capture all) may take of the caps: the rest is
// kept for failing calls, so that a loop of good GEMMs cannot leave the failure after it
// uncaptured.
std::uint64_t cap_for(std::uint64_t limit, bool failure_expected) {
  return failure_expected ? limit : limit - limit / 4;
}

// Whether `bytes` more could fit under the session's caps now (checked before anything is copied).
bool room_for(std::uint64_t bytes, bool failure_expected) {
  record::SharedHeader* s = shared();
  return s->captured_count.load() < cap_for(s->capture_limit_count.load(), failure_expected) &&
         s->captured_bytes.load() + bytes <= cap_for(s->capture_limit_bytes.load(), failure_expected);
}

// Reserves room for `bytes` more under the session's caps. A call that found none is counted as
// skipped by its caller, and only if it failed: a capture written before the call, or of every
// call, may be refused for a call that then succeeds.
bool reserve(std::uint64_t bytes, bool failure_expected) {
  record::SharedHeader* s = shared();
  if (s->captured_count.fetch_add(1) >= cap_for(s->capture_limit_count.load(), failure_expected)) {
    s->captured_count.fetch_sub(1);
    return false;
  }
  if (s->captured_bytes.fetch_add(bytes) + bytes > cap_for(s->capture_limit_bytes.load(), failure_expected)) {
    s->captured_bytes.fetch_sub(bytes);
    s->captured_count.fetch_sub(1);
    return false;
  }
  return true;
}

void unreserve(std::uint64_t bytes) {
  record::SharedHeader* s = shared();
  s->captured_bytes.fetch_sub(bytes);
  s->captured_count.fetch_sub(1);
}

// CAPTURES/call-ID/ (made here: the recorder made CAPTURES).
bool make_directory(const record::CallRecord& call, char* dir, std::size_t size) {
  std::snprintf(dir, size, "%s/call-%llu", capture_root(), static_cast<unsigned long long>(call.id));
  return ::mkdir(dir, 0755) == 0 || errno == EEXIST;
}

const char* dtype_of(record::Precision p) {
  switch (p) {
    case record::Precision::S: return "float32";
    case record::Precision::C: return "complex64";
    case record::Precision::Z: return "complex128";
    default: return "float64";
  }
}

}  // namespace

namespace {
bool captures_on() {
  record::SharedHeader* s = shared();
  return s && capture_root() && s->capture_mode.load(std::memory_order_relaxed) != 0;
}
}  // namespace

bool InputCapture::enabled(record::Precision precision) {
  return captures_on() && !record::is_complex(precision);
}

bool InputCapture::enabled(record::Routine routine, record::Precision precision) {
  return captures_on() && (!record::is_complex(precision) || record::replays_complex(routine));
}

bool InputCapture::capturing_all() {
  return shared() && shared()->capture_mode.load(std::memory_order_relaxed) == 2;
}

InputCapture::~InputCapture() {
  for (Matrix& m : m_inputs) std::free(m.data);
}

void InputCapture::keep(int slot, const void* data, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                        std::size_t element_size, bool row_major, bool complex) {
  // Stored row-major, a matrix is the column-major one of its transpose: packed the same way.
  const std::int64_t lines = row_major ? rows : cols, length = row_major ? cols : rows;
  if (m_skipped || !data || rows <= 0 || cols <= 0 || ld < length || slot < 0 || slot > 2) return;
  const std::uint64_t bytes = static_cast<std::uint64_t>(rows * cols) * element_size;
  // Over the caps (this matrix alone, or what is left of them): nothing is copied. Before the
  // call, past the share of calls not expected to fail, the copy is still made: the call may
  // fail (write_before).
  if (!room_for(bytes, m_outcome_known ? m_failure_expected : true)) {
    m_skipped = true;
    return;
  }
  Matrix& m = m_inputs[slot];
  m.data = std::malloc(bytes);
  if (!m.data) {
    m_skipped = true;
    return;
  }
  m.rows = rows, m.cols = cols, m.element_size = element_size, m.row_major = row_major, m.complex = complex;
  for (std::int64_t j = 0; j < lines; ++j) {
    std::memcpy(static_cast<char*>(m.data) + static_cast<std::size_t>(j * length) * element_size,
                static_cast<const char*>(data) + static_cast<std::size_t>(j * ld) * element_size,
                static_cast<std::size_t>(length) * element_size);
  }
}

void InputCapture::keep_integers(int slot, const int* data, std::int64_t count, const char* name) {
  keep(slot, data, count, 1, count, sizeof(int));
  if (!has(slot)) return;
  m_inputs[slot].integers = true;
  m_inputs[slot].name = name;
}

const char* InputCapture::slot_name(int slot) const {
  static const char* const kDefault[3] = {"a", "b", "c"};
  return m_inputs[slot].name ? m_inputs[slot].name : kDefault[slot];
}

std::uint64_t InputCapture::kept_bytes() const {
  std::uint64_t bytes = 0;
  for (const Matrix& m : m_inputs) {
    if (m.data) bytes += static_cast<std::uint64_t>(m.rows * m.cols) * m.element_size;
  }
  return bytes;
}

bool InputCapture::write_files(record::CallRecord& call, const char* op_json, const char* tensors_extra) {
  if (m_skipped || !m_inputs[0].data) return false;
  const std::uint64_t bytes = kept_bytes();
  if (!reserve(bytes, m_failure_expected)) {
    m_skipped = true;
    return false;
  }
  m_written_bytes = bytes;
  char path[4200], text[4096], tensors[1024] = "";
  bool written = make_directory(call, m_dir, sizeof m_dir);
  for (int i = 0; i < 3 && written; ++i) {
    const Matrix& m = m_inputs[i];
    if (!m.data) continue;
    std::snprintf(path, sizeof path, "%s/%s.npy", m_dir, slot_name(i));
    written = write_npy(path, m.data, m.rows, m.cols, m.element_size, m.row_major, m.integers, m.complex);
    const std::size_t used = std::strlen(tensors);
    std::snprintf(tensors + used, sizeof tensors - used, R"(%s"%s": {"file": "%s.npy"})", used ? ", " : "",
                  slot_name(i), slot_name(i));
  }
  if (written) {
    std::snprintf(text, sizeof text,
                  "{\"name\": \"call %llu\",\n \"recorded_call\": %llu,\n \"description\": \"Inputs of call %llu as "
                  "they were before it "
                  "ran, captured by blasscope-cli record\",\n \"tensors\": {%s%s%s},\n \"ops\": [%s]}\n",
                  static_cast<unsigned long long>(call.id), static_cast<unsigned long long>(call.id),
                  static_cast<unsigned long long>(call.id), tensors, *tensors_extra ? ", " : "", tensors_extra,
                  op_json);
    std::snprintf(path, sizeof path, "%s/workload.json", m_dir);
    written = write_text(path, text);
  }
  if (!written) {  // a full disk: nothing half-written stays, and its share of the caps goes back
    remove_written();
    m_skipped = true;
    return false;
  }
  call.flags |= record::kCaptured;
  return true;
}

void InputCapture::remove_written() {
  if (!m_dir[0]) return;
  char path[4200];
  for (int i = 0; i < 3; ++i) {
    std::snprintf(path, sizeof path, "%s/%s.npy", m_dir, slot_name(i));
    ::unlink(path);
  }
  std::snprintf(path, sizeof path, "%s/workload.json", m_dir);
  ::unlink(path);
  ::rmdir(m_dir);
  unreserve(m_written_bytes);
  m_dir[0] = '\0';
}

void InputCapture::write_before(record::CallRecord& call, const char* op_json) {
  // Past the share of calls not expected to fail, the copies wait for the call's outcome: a
  // failure after many good calls (--capture all) takes the failures' share then.
  const std::uint64_t bytes = kept_bytes();
  if (!m_failure_expected && !m_skipped && m_inputs[0].data && !room_for(bytes, false) && room_for(bytes, true) &&
      std::strlen(op_json) < sizeof m_deferred_op) {
    std::memcpy(m_deferred_op, op_json, std::strlen(op_json) + 1);
    return;
  }
  write_files(call, op_json, "");
  release_copies();  // copied out: the memory goes back before the call runs
}

void InputCapture::release_copies() {
  for (Matrix& m : m_inputs) {
    std::free(m.data);
    m.data = nullptr;
  }
}

void InputCapture::give_up() {
  release_copies();
  m_gave_up = true;
}

void InputCapture::write_after(record::CallRecord& call, bool failed, const char* op_json, const char* tensors_extra) {
  if (failed) m_failure_expected = true;  // known now: the failures' share of the caps takes it
  if (!write_files(call, op_json, tensors_extra)) skip(failed);
}

void InputCapture::settle(record::CallRecord& call, bool failed) {
  // A call no replay reproduces: the report names it by routine (uncaptured_failures), not
  // among those the caps left out.
  if (m_gave_up) return;
  if (m_deferred_op[0]) {
    m_failure_expected = true;
    if (failed) {
      write_after(call, true, m_deferred_op);
    } else {
      skip(false);  // under --capture all: a call left out
    }
    release_copies();
    m_deferred_op[0] = '\0';
    return;
  }
  if (m_skipped) skip(failed);
  if (failed || capturing_all()) return;
  remove_written();
  call.flags &= static_cast<std::uint16_t>(~record::kCaptured);
}

// Wanted and not captured: a failing call, or under --capture all any call.
void InputCapture::skip(bool failed) {
  if (failed || capturing_all()) shared()->capture_skipped.fetch_add(1);
}

namespace {
// `, "ld": LD` for a tensor whose leading dimension `ld` is legal and past its dense one, else "".
void padding(char (&out)[32], std::int64_t ld, long long dense) {
  out[0] = '\0';
  if (ld > dense && dense > 0) std::snprintf(out, sizeof out, ", \"ld\": %lld", static_cast<long long>(ld));
}
}  // namespace

void capture_gemm_arguments(record::CallRecord& c) {
  record::SharedHeader* s = shared();
  if (!s || !capture_root() || s->capture_mode.load() == 0) return;
  // Synthetic operands: the gemm op takes complex ones too (CGEMM, ZGEMM).
  if (c.precision != record::Precision::S && c.precision != record::Precision::D &&
      c.precision != record::Precision::C && c.precision != record::Precision::Z) {
    return;
  }
  if (c.m < 0 || c.n < 0 || c.k < 0 || c.m * c.k > (1 << 26) || c.k * c.n > (1 << 26)) return;
  // A transpose flag that is not N, T or C, or a CBLAS layout that is neither row- nor
  // column-major (OpenBLAS reports it as parameter 0), has no workload form.
  if (c.xerbla_parameter <= 2) return;
  const bool row = c.flags & record::kRowMajor, ta = c.flags & record::kTransA, tb = c.flags & record::kTransB;
  const char* order = row ? "C" : "F";
  const long long ar = ta ? c.k : c.m, ac = ta ? c.m : c.k, br = tb ? c.n : c.k, bc = tb ? c.k : c.n;
  // Padded, an operand holds LD x its other size: capped as the dense ones are.
  const auto too_big = [](std::int64_t ld, long long dense, long long other) {
    return ld > dense && ld * other > (1ll << 26);
  };
  if (too_big(c.lda, row ? ac : ar, row ? ar : ac) || too_big(c.ldb, row ? bc : br, row ? br : bc) ||
      too_big(c.ldc, row ? c.n : c.m, row ? c.m : c.n)) {
    return;
  }
  if (!reserve(0, true)) return;
  char dir[4096], path[4200], text[2048];
  if (!make_directory(c, dir, sizeof dir)) return;
  // A legal leading dimension past the rows (columns, row-major) is the tensor's own padding: the
  // operand held that much memory, and a replay on a dense one would read past it.
  char pad_a[32], pad_b[32], pad_c[32];
  padding(pad_a, c.lda, row ? ac : ar);
  padding(pad_b, c.ldb, row ? bc : br);
  padding(pad_c, c.ldc, row ? c.n : c.m);
  // C is given in the call's order too: the replay's GEMM takes its layout (row- or column-major)
  // from C, so without it a column-major call would replay row-major, its parameters swapped.
  std::snprintf(
      text, sizeof text,
      "{\"name\": \"call %llu\",\n \"recorded_call\": %llu,\n \"description\": \"The arguments of call %llu, which "
      "xerbla rejected "
      "(parameter %d): synthetic tensors of the same shapes and layout\",\n"
      " \"tensors\": {\"a\": {\"shape\": [%lld, %lld], \"dtype\": \"%s\", \"order\": \"%s\", \"seed\": 1%s},\n"
      "             \"b\": {\"shape\": [%lld, %lld], \"dtype\": \"%s\", \"order\": \"%s\", \"seed\": 2%s},\n"
      "             \"c\": {\"shape\": [%lld, %lld], \"dtype\": \"%s\", \"order\": \"%s\", \"fill\": \"zeros\"%s}},\n"
      " \"ops\": [{\"op\": \"gemm\", \"a\": \"a\", \"b\": \"b\", \"c\": \"c\", \"trans_a\": %s, "
      "\"trans_b\": %s, \"lda\": %lld, \"ldb\": %lld, \"ldc\": %lld}]}\n",
      static_cast<unsigned long long>(c.id), static_cast<unsigned long long>(c.id),
      static_cast<unsigned long long>(c.id), c.xerbla_parameter, ar, ac, dtype_of(c.precision), order, pad_a, br, bc,
      dtype_of(c.precision), order, pad_b, static_cast<long long>(c.m), static_cast<long long>(c.n),
      dtype_of(c.precision), order, pad_c, ta ? "true" : "false", tb ? "true" : "false", static_cast<long long>(c.lda),
      static_cast<long long>(c.ldb), static_cast<long long>(c.ldc));
  std::snprintf(path, sizeof path, "%s/workload.json", dir);
  if (write_text(path, text)) c.flags |= record::kCaptured;
}

namespace {

// What a replay of one refused call needs: A's shape, the second operand's (x, B; none for
// SYRK), and the op's own keys.
struct BlasReplay {
  long long a_rows = 0, a_cols = 0, b_rows = 0, b_cols = 0;
  const char* b_name = nullptr;
  char keys[256] = {};
};

// The refused argument's own value (a leading dimension below its bound, a zero stride), where
// `parameter`, its position in the Fortran list, is the one refused; the others the op takes
// from its tensors.
void add_refused(BlasReplay& r, const record::CallRecord& c, int parameter, const char* key, std::int64_t ld) {
  if (c.xerbla_parameter != parameter) return;
  const std::size_t used = std::strlen(r.keys);
  std::snprintf(r.keys + used, sizeof r.keys - used, ", \"%s\": %lld", key, static_cast<long long>(ld));
}

// False where no replay passes the refused argument: a flag letter (a replay passes legal
// ones), a negative size (no tensor has one).
bool plan_replay(const record::CallRecord& c, BlasReplay& r) {
  using record::Routine;
  const bool trans = c.flags & record::kTransA;  // the Fortran wrappers set it from TRANS too
  const int p = c.xerbla_parameter;
  if (p <= 0) return false;  // a CBLAS layout that is neither row- nor column-major
  if (c.routine == Routine::Gemv) {
    if (p == 1 || c.m < 0 || c.n < 0) return false;
    r.a_rows = c.m, r.a_cols = c.n, r.b_rows = trans ? c.m : c.n, r.b_cols = 0, r.b_name = "x";
    std::snprintf(r.keys, sizeof r.keys, "\"op\": \"gemv\", \"a\": \"a\", \"x\": \"x\", \"trans\": %s",
                  trans ? "true" : "false");
    add_refused(r, c, 6, "lda", c.lda);
    add_refused(r, c, 8, "incx", 0);  // a stride is refused only when it is 0
    add_refused(r, c, 11, "incy", 0);
    return true;
  }
  if (c.routine == Routine::Syrk) {
    if (p == 1 || p == 2 || c.n < 0 || c.k < 0) return false;
    r.a_rows = trans ? c.k : c.n, r.a_cols = trans ? c.n : c.k;
    std::snprintf(r.keys, sizeof r.keys, "\"op\": \"syrk\", \"a\": \"a\", \"trans\": %s", trans ? "true" : "false");
    add_refused(r, c, 7, "lda", c.lda);
    add_refused(r, c, 10, "ldc", c.ldc);
    return true;
  }
  if (c.routine == Routine::Trsm) {
    const bool right = c.side_uplo == 'R' || c.side_uplo == 'r';
    if (p <= 4 || c.m < 0 || c.n < 0) return false;
    r.a_rows = r.a_cols = right ? c.n : c.m, r.b_rows = c.m, r.b_cols = c.n, r.b_name = "b";
    std::snprintf(r.keys, sizeof r.keys, "\"op\": \"trsm\", \"a\": \"a\", \"b\": \"b\", \"side\": \"%c\"",
                  right ? 'R' : 'L');
    add_refused(r, c, 9, "lda", c.lda);
    add_refused(r, c, 11, "ldb", c.ldb);
    return true;
  }
  return false;
}

}  // namespace

void capture_blas_arguments(record::CallRecord& c) {
  record::SharedHeader* s = shared();
  if (!s || !capture_root() || s->capture_mode.load() == 0) return;
  if (c.precision != record::Precision::S && c.precision != record::Precision::D) return;
  BlasReplay r;
  if (!plan_replay(c, r)) return;
  if (r.a_rows * r.a_cols > (1 << 26) || r.b_rows * std::max(r.b_cols, 1ll) > (1 << 26)) return;
  if (!reserve(0, true)) return;
  char dir[4096], path[4200], text[2048], second[256] = "";
  if (!make_directory(c, dir, sizeof dir)) return;
  const char* order = (c.flags & record::kRowMajor) ? "C" : "F";
  const char* dtype = dtype_of(c.precision);
  if (r.b_name && r.b_cols > 0) {
    std::snprintf(second, sizeof second,
                  ",\n             \"b\": {\"shape\": [%lld, %lld], \"dtype\": \"%s\", "
                  "\"order\": \"%s\", \"seed\": 2}",
                  r.b_rows, r.b_cols, dtype, order);
  } else if (r.b_name) {
    std::snprintf(second, sizeof second, ",\n             \"x\": {\"shape\": [%lld], \"dtype\": \"%s\", \"seed\": 2}",
                  r.b_rows, dtype);
  }
  std::snprintf(
      text, sizeof text,
      "{\"name\": \"call %llu\",\n \"recorded_call\": %llu,\n \"description\": \"The arguments of call %llu, which "
      "xerbla rejected "
      "(parameter %d): synthetic tensors of the same shapes and layout\",\n"
      " \"tensors\": {\"a\": {\"shape\": [%lld, %lld], \"dtype\": \"%s\", \"order\": \"%s\", \"seed\": 1}%s},\n"
      " \"ops\": [{%s}]}\n",
      static_cast<unsigned long long>(c.id), static_cast<unsigned long long>(c.id),
      static_cast<unsigned long long>(c.id), c.xerbla_parameter, r.a_rows, r.a_cols, dtype, order, second, r.keys);
  std::snprintf(path, sizeof path, "%s/workload.json", dir);
  if (write_text(path, text)) c.flags |= record::kCaptured;
}

}  // namespace blasscope::preload
