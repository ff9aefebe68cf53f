#include "io/hdf5_filter_guard.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

// libhdf5's built-in filter classes and the registration behind H5Zregister: not in its public
// headers, but defined by the library (H5Zprivate.h), static or shared.
extern "C" {
extern const H5Z_class2_t H5Z_DEFLATE[1], H5Z_SHUFFLE[1], H5Z_FLETCHER32[1], H5Z_SZIP[1], H5Z_NBIT[1],
    H5Z_SCALEOFFSET[1];
herr_t H5Z_register(const H5Z_class2_t* filter);
}

namespace blasscope::core {
namespace {

constexpr std::array<const H5Z_class2_t*, 6> kBuiltins = {H5Z_DEFLATE, H5Z_SHUFFLE, H5Z_FLETCHER32,
                                                          H5Z_SZIP,    H5Z_NBIT,    H5Z_SCALEOFFSET};
std::array<H5Z_func_t, kBuiltins.size()> g_original{};
std::array<H5Z_filter_t, kBuiltins.size()> g_id{};

constexpr std::size_t kInflateSlack = 1 << 20;

struct ChunkExpectation {
  std::size_t chunk_bytes = 0;       // 0: no dataset read of ours on this thread
  bool deflate_gives_chunk = false;  // deflate's output is the chunk (only shuffle decoded after it)
};
thread_local ChunkExpectation t_expected;
thread_local std::string t_failure;

std::size_t after_reverse(H5Z_filter_t id, std::size_t out, std::size_t* buf_size, void** buf) {
  const ChunkExpectation& expected = t_expected;
  if (expected.chunk_bytes == 0) return out;
  if (id == H5Z_FILTER_DEFLATE && expected.deflate_gives_chunk && out != expected.chunk_bytes) {
    t_failure = "a chunk inflates to " + std::to_string(out) + " bytes, not the " +
                std::to_string(expected.chunk_bytes) + " bytes of its chunk shape (a corrupt chunk index or layout)";
    return 0;
  }
  if (*buf_size < expected.chunk_bytes) {
    void* grown = H5resize_memory(*buf, expected.chunk_bytes);
    if (!grown) return 0;
    *buf = grown;
    *buf_size = expected.chunk_bytes;
  }
  if (out < expected.chunk_bytes) std::memset(static_cast<char*>(*buf) + out, 0, expected.chunk_bytes - out);
  return out;
}

// libhdf5's deflate doubles its output buffer until the stream ends, whatever the chunk: a few
// MB of zeros inflate to GB (found in review). Reading, deflate is done here instead, into a
// buffer of the chunk's size (a little more where a filter after it on writing, such as
// scale-offset, makes what it inflates to differ from the chunk); a stream that does not end
// inside it fails the read.
std::size_t capped_inflate(std::size_t nbytes, std::size_t* buf_size, void** buf) {
  const ChunkExpectation& expected = t_expected;
  const std::size_t cap = expected.chunk_bytes + (expected.deflate_gives_chunk ? 0 : kInflateSlack);
  void* out = H5allocate_memory(std::max<std::size_t>(cap, 1), false);
  if (!out) return 0;
  z_stream stream{};
  stream.next_in = static_cast<Bytef*>(*buf);
  stream.avail_in = static_cast<uInt>(std::min<std::size_t>(nbytes, std::numeric_limits<uInt>::max()));
  stream.next_out = static_cast<Bytef*>(out);
  stream.avail_out = static_cast<uInt>(std::min<std::size_t>(cap, std::numeric_limits<uInt>::max()));
  int status = inflateInit(&stream);
  if (status == Z_OK) status = inflate(&stream, Z_FINISH);
  const std::size_t produced = stream.total_out;
  inflateEnd(&stream);
  if (status != Z_STREAM_END) {
    H5free_memory(out);
    t_failure = status == Z_BUF_ERROR && stream.avail_out == 0
                    ? "a chunk inflates to more than the " + std::to_string(cap) + " bytes of its chunk shape"
                    : std::string("a chunk's deflate stream is corrupt (zlib: ") +
                          (stream.msg ? stream.msg : "truncated") + ")";
    return 0;
  }
  H5free_memory(*buf);
  *buf = out;
  *buf_size = cap;
  return produced;
}

template <std::size_t K>
std::size_t guarded(unsigned flags, std::size_t values, const unsigned config[], std::size_t nbytes,
                    std::size_t* buf_size, void** buf) {
  const bool reverse = flags & H5Z_FLAG_REVERSE;
  const std::size_t out = reverse && g_id[K] == H5Z_FILTER_DEFLATE && t_expected.chunk_bytes > 0
                              ? capped_inflate(nbytes, buf_size, buf)
                              : g_original[K](flags, values, config, nbytes, buf_size, buf);
  return reverse && out > 0 ? after_reverse(g_id[K], out, buf_size, buf) : out;
}

template <std::size_t... K>
constexpr std::array<H5Z_func_t, sizeof...(K)> wrappers(std::index_sequence<K...>) {
  return {guarded<K>...};
}

// H5Zregister refuses to replace a predefined filter; H5Z_register, which H5Zregister calls
// after that check, replaces the table entry.
void install() {
  constexpr auto kWrappers = wrappers(std::make_index_sequence<kBuiltins.size()>{});
  H5open();
  for (std::size_t k = 0; k < kBuiltins.size(); ++k) {
    const H5Z_class2_t* builtin = kBuiltins[k];
    if (!builtin->filter || builtin->version != H5Z_CLASS_T_VERS) continue;  // another libhdf5
    H5Z_class2_t wrapped = *builtin;
    g_original[k] = builtin->filter;
    g_id[k] = builtin->id;
    wrapped.filter = kWrappers[k];
    if (H5Z_register(&wrapped) < 0) H5Eclear2(H5E_DEFAULT);
  }
}

}  // namespace

void install_hdf5_filter_guards() {
  static std::once_flag once;
  std::call_once(once, install);
}

Hdf5ChunkReadGuard::Hdf5ChunkReadGuard(hid_t create, std::size_t item) {
  t_failure.clear();
  const int rank = H5Pget_chunk(create, 0, nullptr);
  std::vector<hsize_t> dims(rank > 0 ? static_cast<std::size_t>(rank) : 0);
  if (rank <= 0 || H5Pget_chunk(create, rank, dims.data()) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return;
  }
  std::size_t bytes = item;
  for (hsize_t d : dims) {
    if (__builtin_mul_overflow(bytes, d, &bytes)) return;
  }
  ChunkExpectation expected{bytes, false};
  // Filters decode in reverse pipeline order: deflate's output is the chunk when it is the only
  // deflate and every filter before it in the pipeline is shuffle (which keeps the size).
  const int filters = H5Pget_nfilters(create);
  bool only_shuffle_before = true;
  int deflates = 0;
  for (int i = 0; i < filters; ++i) {
    unsigned flags = 0, config = 0;
    std::size_t values = 0;
    const H5Z_filter_t id =
        H5Pget_filter2(create, static_cast<unsigned>(i), &flags, &values, nullptr, 0, nullptr, &config);
    if (id == H5Z_FILTER_DEFLATE) {
      expected.deflate_gives_chunk = ++deflates == 1 && only_shuffle_before;
    } else if (id != H5Z_FILTER_SHUFFLE && deflates == 0) {
      only_shuffle_before = false;
    }
  }
  if (deflates > 1) expected.deflate_gives_chunk = false;
  H5Eclear2(H5E_DEFAULT);
  t_expected = expected;
}

const std::string& Hdf5ChunkReadGuard::failure() const {
  return t_failure;
}

Hdf5ChunkReadGuard::~Hdf5ChunkReadGuard() {
  t_expected = {};  // t_failure stays for failure(), until the next guard
}

}  // namespace blasscope::core
