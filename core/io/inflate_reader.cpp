#include "io/inflate_reader.h"

#include <algorithm>
#include <array>
#include <limits>

#include "io/input_error.h"

namespace blasscope::core {

InflateReader::InflateReader(std::span<const std::byte> compressed, std::uint64_t uncompressed_size,
                             std::uint32_t crc32, std::string member_name)
    : m_compressed(compressed),
      m_expected(uncompressed_size),
      m_expected_crc(crc32),
      m_crc(static_cast<std::uint32_t>(::crc32(0L, Z_NULL, 0))),
      m_name(std::move(member_name)) {
  // Negative window bits: a raw deflate stream, as ZIP stores it.
  if (inflateInit2(&m_stream, -MAX_WBITS) != Z_OK) fail("cannot initialise zlib");
  m_stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(compressed.data()));
  m_stream.avail_in = 0;
}

InflateReader::~InflateReader() {
  inflateEnd(&m_stream);
}

void InflateReader::fail(const std::string& what) const {
  fail_malformed("zip: member '" + m_name + "': " + what);
}

std::size_t InflateReader::read(std::span<std::byte> out) {
  std::size_t written = 0;
  constexpr std::uint64_t kMaxStep = std::numeric_limits<uInt>::max();
  while (written < out.size() && !m_ended) {
    if (m_stream.avail_in == 0) {
      const auto consumed =
          static_cast<std::uint64_t>(reinterpret_cast<const std::byte*>(m_stream.next_in) - m_compressed.data());
      m_stream.avail_in = static_cast<uInt>(std::min<std::uint64_t>(m_compressed.size() - consumed, kMaxStep));
    }
    const std::size_t room = std::min<std::uint64_t>(out.size() - written, kMaxStep);
    m_stream.next_out = reinterpret_cast<Bytef*>(out.data() + written);
    m_stream.avail_out = static_cast<uInt>(room);
    const int status = inflate(&m_stream, Z_NO_FLUSH);
    const std::size_t got = room - m_stream.avail_out;
    m_crc = static_cast<std::uint32_t>(
        ::crc32(m_crc, reinterpret_cast<const Bytef*>(out.data() + written), static_cast<uInt>(got)));
    written += got;
    m_produced += got;
    if (m_produced > m_expected) {
      fail("inflates to more than the " + std::to_string(m_expected) + " bytes the directory declares");
    }
    if (status == Z_STREAM_END) {
      m_ended = true;
      finish_checks();
    } else if (status == Z_BUF_ERROR && m_stream.avail_in == 0) {
      fail("compressed data ends early (truncated) after " + std::to_string(m_produced) + " bytes");
    } else if (status != Z_OK && status != Z_BUF_ERROR) {
      fail(std::string("corrupt deflate stream (") + (m_stream.msg ? m_stream.msg : "zlib error") + ")");
    }
  }
  return written;
}

void InflateReader::skip(std::uint64_t count) {
  std::array<std::byte, 16384> scratch;
  while (count > 0) {
    const std::size_t step = std::min<std::uint64_t>(count, scratch.size());
    if (read(std::span(scratch).first(step)) != step) fail("ends before its data starts");
    count -= step;
  }
}

void InflateReader::finish() {
  std::array<std::byte, 1> extra;
  if (!m_ended && read(extra) != 0) fail("holds more bytes than its .npy header describes");
  if (!m_ended) fail("deflate stream does not end where the data ends");
}

void InflateReader::finish_checks() {
  if (m_produced != m_expected) {
    fail("inflates to only " + std::to_string(m_produced) + " bytes, but the directory declares " +
         std::to_string(m_expected) + " (truncated member)");
  }
  if (m_crc != m_expected_crc) fail("CRC-32 mismatch: the data is corrupt");
}

}  // namespace blasscope::core
