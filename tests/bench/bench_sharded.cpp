#include "bench_sharded.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "analysis/inspect_report.h"
#include "text/json.h"

namespace blasscope::bench {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr int kShards = 4;
constexpr int kTensorsPerShard = 50;

// One safetensors shard: tensors alternate float32 and bfloat16, each with one NaN.
std::vector<std::string> write_shard(const fs::path& path, int shard, std::uint64_t shard_bytes) {
  const std::uint64_t tensor_bytes = shard_bytes / kTensorsPerShard / 4096 * 4096;  // whole rows of 1024
  nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
  std::vector<std::string> names;
  for (int t = 0; t < kTensorsPerShard; ++t) {
    const bool bf16 = t % 2 == 1;
    const std::uint64_t columns = 1024;
    const std::uint64_t rows = tensor_bytes / (bf16 ? 2 : 4) / columns;
    const std::uint64_t begin = static_cast<std::uint64_t>(t) * tensor_bytes;
    const std::string name = "model.layers." + std::to_string(shard * kTensorsPerShard + t) + ".mlp.down_proj.weight";
    header[name] = {{"dtype", bf16 ? "BF16" : "F32"},
                    {"shape", {rows, columns}},
                    {"data_offsets", {begin, begin + rows * columns * (bf16 ? 2 : 4)}}};
    names.push_back(name);
  }
  std::string text = header.dump();
  while (text.size() % 8 != 0) text += ' ';
  std::ofstream out(path, std::ios::binary);
  const std::uint64_t length = text.size();
  out.write(reinterpret_cast<const char*>(&length), 8);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  std::vector<float> f32(tensor_bytes / 4);
  std::vector<std::uint16_t> bf16(tensor_bytes / 2);
  for (int t = 0; t < kTensorsPerShard; ++t) {
    const bool is_bf16 = t % 2 == 1;
    const std::size_t count = is_bf16 ? bf16.size() : f32.size();
    for (std::size_t i = 0; i < count; ++i) {
      const float value = i == static_cast<std::size_t>(t) * 7 ? NAN : std::sin(static_cast<float>(i + t) * 1e-3f);
      if (!is_bf16) {
        f32[i] = value;
        continue;
      }
      std::uint32_t bits;
      std::memcpy(&bits, &value, 4);
      bf16[i] = static_cast<std::uint16_t>(bits >> 16);  // bfloat16 is float32's upper half
    }
    out.write(is_bf16 ? reinterpret_cast<const char*>(bf16.data()) : reinterpret_cast<const char*>(f32.data()),
              static_cast<std::streamsize>(tensor_bytes));
  }
  return names;
}

std::vector<std::string> write_checkpoint(const fs::path& folder, std::uint64_t shard_bytes) {
  fs::create_directories(folder);
  nlohmann::json weight_map = nlohmann::json::object();
  std::vector<std::string> files;
  for (int s = 0; s < kShards; ++s) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", s + 1, kShards);
    for (const std::string& tensor : write_shard(folder / name, s, shard_bytes)) weight_map[tensor] = name;
    files.push_back((folder / name).string());
  }
  std::ofstream(folder / "model.safetensors.index.json")
      << nlohmann::json{{"metadata", nlohmann::json::object()}, {"weight_map", weight_map}}.dump(2);
  return files;
}

// The baseline: map every shard and read each 8-byte word once, 8 MiB units handed to every
// hardware thread.
double plain_read_seconds(const std::vector<std::string>& files, std::uint64_t& checksum) {
  const auto start = Clock::now();
  struct Map {
    const std::uint64_t* words;
    std::size_t size;
  };
  std::vector<Map> maps;
  std::vector<std::pair<std::size_t, std::size_t>> units;  // (map, first word)
  constexpr std::size_t kUnitWords = (8 << 20) / 8;
  for (const std::string& path : files) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    const auto size = static_cast<std::size_t>(::lseek(fd, 0, SEEK_END));
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    ::madvise(map, size, MADV_SEQUENTIAL);
    for (std::size_t w = 0; w < size / 8; w += kUnitWords) units.emplace_back(maps.size(), w);
    maps.push_back({static_cast<const std::uint64_t*>(map), size});
  }
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::uint64_t> sums(threads);
  std::atomic<std::size_t> next{0};
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        std::uint64_t sum = 0;
        for (std::size_t u; (u = next.fetch_add(1)) < units.size();) {
          const Map& m = maps[units[u].first];
          const std::size_t end = std::min(units[u].second + kUnitWords, m.size / 8);
          for (std::size_t i = units[u].second; i < end; ++i) sum += m.words[i];
        }
        sums[t] = sum;
      });
    }
  }
  for (const Map& m : maps) ::munmap(const_cast<std::uint64_t*>(m.words), m.size);
  for (auto s : sums) checksum += s;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double inspect_seconds(const std::string& path, std::uint64_t& nan, std::size_t& tensors) {
  const auto start = Clock::now();
  const auto report = core::inspect_file(path);
  for (const auto& t : report.tensors) nan += t.stats->nan;
  tensors = report.tensors.size();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

void run_sharded_case(std::uint64_t gib) {
  const fs::path folder = fs::temp_directory_path() / "blasscope-bench-sharded";
  const std::uint64_t shard_bytes = gib * (256ull << 20);
  std::printf("writing a sharded checkpoint: %d safetensors shards of %llu MiB, %d tensors, to %s\n", kShards,
              static_cast<unsigned long long>(shard_bytes >> 20), kShards * kTensorsPerShard, folder.c_str());
  const std::vector<std::string> files = write_checkpoint(folder, shard_bytes);
  double bytes = 0;
  for (const std::string& f : files) bytes += static_cast<double>(fs::file_size(f));
  std::uint64_t checksum = 0, nan = 0;
  std::size_t tensors = 0;
  plain_read_seconds(files, checksum);  // warm the page cache
  std::vector<double> plain, scan;
  for (int round = 0; round < 5; ++round) {
    plain.push_back(plain_read_seconds(files, checksum));
    scan.push_back(inspect_seconds((folder / "model.safetensors.index.json").string(), nan, tensors));
  }
  fs::remove_all(folder);
  const double plain_s = median(plain), scan_s = median(scan);
  std::printf("sharded: %zu tensors (checksum %llx, NaN found per run: %llu)\n", tensors,
              static_cast<unsigned long long>(checksum), static_cast<unsigned long long>(nan / 5));
  std::printf("plain read (sharded): median %.3f s  %.2f GB/s\n", plain_s, bytes / plain_s / 1e9);
  std::printf("inspect    (sharded): median %.3f s  %.2f GB/s\n", scan_s, bytes / scan_s / 1e9);
  const double ratio = plain_s / scan_s;
  std::printf("ratio inspect/plain speed (sharded): %.2f (goal >= 0.90) %s\n", ratio,
              ratio >= 0.90 ? "MET" : "NOT MET");
}

}  // namespace blasscope::bench
