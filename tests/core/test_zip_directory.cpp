#include <gtest/gtest.h>
#include <zlib.h>

#include <vector>

#include "io/inflate_reader.h"
#include "io/input_error.h"
#include "io/zip_directory.h"
#include "test_files.h"

using namespace blasscope::core;

namespace {

std::span<const std::byte> as_bytes(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

std::string raw_deflate(const std::string& input) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, input.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z.avail_in = static_cast<uInt>(input.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::uint32_t crc_of(const std::string& s) {
  return static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size())));
}

}  // namespace

TEST(ZipDirectory, ReadsNumPyArchives) {
  blasscope::test::TempDir dir;
  blasscope::test::run_data_script("make_tensor_files.py", dir.path().string());
  const std::string zip = blasscope::test::read_file(dir.file("many.npz"));
  const auto members = read_zip_directory(as_bytes(zip));
  ASSERT_EQ(members.size(), 60u);
  EXPECT_EQ(members[0].name, "layer000.weight.npy");
  for (const auto& m : members) {
    EXPECT_EQ(m.method, 8);
    EXPECT_LE(m.data_offset + m.compressed_size, zip.size());
  }
}

TEST(ZipDirectory, GarbageIsRejected) {
  EXPECT_THROW(read_zip_directory(as_bytes(std::string(100, 'x'))), InputError);
  EXPECT_THROW(read_zip_directory(as_bytes("PK\x05\x06")), InputError);
}

TEST(InflateReader, StreamsInBoundedChunksAndChecksCrc) {
  std::string payload(1 << 20, '\0');
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7 % 251);
  const std::string packed = raw_deflate(payload);
  InflateReader reader(as_bytes(packed), payload.size(), crc_of(payload), "m");
  std::vector<std::byte> chunk(4096);
  std::string rebuilt;
  while (std::size_t n = reader.read(chunk)) rebuilt.append(reinterpret_cast<const char*>(chunk.data()), n);
  reader.finish();
  EXPECT_EQ(rebuilt, payload);
}

TEST(InflateReader, WrongCrcShortAndLongStreamsFail) {
  const std::string payload(10000, 'a');
  const std::string packed = raw_deflate(payload);
  std::vector<std::byte> all(20000);
  {
    InflateReader reader(as_bytes(packed), payload.size(), crc_of(payload) ^ 1, "m");
    EXPECT_THROW(reader.read(all), InputError);
  }
  {
    InflateReader reader(as_bytes(packed), payload.size() + 5, crc_of(payload), "m");
    EXPECT_THROW(reader.read(all), InputError);  // declared longer than it is
  }
  {
    InflateReader reader(as_bytes(packed), payload.size() - 5, crc_of(payload), "m");
    EXPECT_THROW(reader.read(all), InputError);  // inflates past the declared size
  }
  {
    InflateReader reader(as_bytes(packed.substr(0, packed.size() / 2)), payload.size(), crc_of(payload), "m");
    EXPECT_THROW(reader.read(all), InputError);  // truncated compressed data
  }
}
