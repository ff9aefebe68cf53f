#pragma once

#include <zlib.h>

#include <cstdint>
#include <span>
#include <string>

namespace blasscope::core {

// Streams the uncompressed bytes of one deflated ZIP member without ever holding more
// than the caller's buffer: a member that claims a huge size cannot make us allocate it.
// Checks the produced length and CRC-32 against what the directory declared.
class InflateReader {
 public:
  InflateReader(std::span<const std::byte> compressed, std::uint64_t uncompressed_size, std::uint32_t crc32,
                std::string member_name);
  ~InflateReader();
  InflateReader(const InflateReader&) = delete;
  InflateReader& operator=(const InflateReader&) = delete;

  // Fills `out` completely unless the member ends first; returns the bytes written.
  std::size_t read(std::span<std::byte> out);
  // Reads and discards `count` bytes.
  void skip(std::uint64_t count);
  // Confirms the stream ends here, with the declared size and CRC-32.
  void finish();
  std::uint64_t produced() const { return m_produced; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  void finish_checks();

  z_stream m_stream{};
  std::span<const std::byte> m_compressed;
  std::uint64_t m_expected = 0;
  std::uint32_t m_expected_crc = 0;
  std::uint32_t m_crc = 0;
  std::uint64_t m_produced = 0;
  bool m_ended = false;
  std::string m_name;
};

}  // namespace blasscope::core
