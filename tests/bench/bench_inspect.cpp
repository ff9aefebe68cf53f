// blasscope-bench-inspect: times the full `inspect` scan of a 1 GiB float32 .npy against a
// plain multi-threaded memory read of the same mapped bytes, side by side in one run.
// Goal: the scan runs at >= 70% of the plain read's speed.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
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
#include "bench_sharded.h"

namespace {

using Clock = std::chrono::steady_clock;

void write_npy(const std::string& path, std::uint64_t count) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char length[2] = {static_cast<char>(header.size() & 0xFF), static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  std::vector<float> chunk(1 << 20);
  for (std::uint64_t done = 0; done < count; done += chunk.size()) {
    for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = std::sin(static_cast<float>(done + i) * 1e-3f);
    if (done == 0) chunk[12345] = NAN;
    if (done == (count / 2 / chunk.size()) * chunk.size()) chunk[7] = NAN;
    if (done + chunk.size() >= count) chunk[(count - done) - 1] = -INFINITY;
    out.write(reinterpret_cast<const char*>(chunk.data()),
              static_cast<std::streamsize>(std::min<std::uint64_t>(chunk.size(), count - done) * 4));
  }
}

// The baseline: map the file and read every 8-byte word once, on every hardware thread.
double plain_read_seconds(const std::string& path, std::uint64_t& checksum) {
  const auto start = Clock::now();
  const int fd = ::open(path.c_str(), O_RDONLY);
  const auto size = static_cast<std::size_t>(::lseek(fd, 0, SEEK_END));
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  ::madvise(map, size, MADV_SEQUENTIAL);
  const auto* words = static_cast<const std::uint64_t*>(map);
  const std::size_t n = size / 8;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::uint64_t> sums(threads);
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        std::uint64_t sum = 0;
        for (std::size_t i = n * t / threads; i < n * (t + 1) / threads; ++i) sum += words[i];
        sums[t] = sum;
      });
    }
  }
  ::munmap(map, size);
  for (auto s : sums) checksum += s;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double inspect_seconds(const std::string& path, std::uint64_t& nan) {
  const auto start = Clock::now();
  const auto report = blasscope::core::inspect_file(path);
  nan += report.tensors.at(0).stats->nan;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t gib = argc > 1 ? std::stoull(argv[1]) : 1;  // size in GiB, 1 by default
  const std::string path = (std::filesystem::temp_directory_path() / "blasscope-bench-inspect.npy").string();
  const std::uint64_t count = gib * (1ull << 30) / 4;
  std::printf("writing %llu GiB float32 .npy (%llu values, 3 non-finite) to %s\n", static_cast<unsigned long long>(gib),
              static_cast<unsigned long long>(count), path.c_str());
  write_npy(path, count);
  const double bytes = static_cast<double>(count * 4);
  std::uint64_t checksum = 0, nan = 0;
  plain_read_seconds(path, checksum);  // warm the page cache
  std::vector<double> plain, scan;
  for (int round = 0; round < 5; ++round) {
    plain.push_back(plain_read_seconds(path, checksum));
    scan.push_back(inspect_seconds(path, nan));
  }
  std::filesystem::remove(path);
  const double plain_s = median(plain), scan_s = median(scan);
  std::printf("threads: %u (checksum %llx, NaN found per run: %llu)\n", std::thread::hardware_concurrency(),
              static_cast<unsigned long long>(checksum), static_cast<unsigned long long>(nan / 5));
  std::printf("plain read : median %.3f s  %.2f GB/s\n", plain_s, bytes / plain_s / 1e9);
  std::printf("inspect    : median %.3f s  %.2f GB/s\n", scan_s, bytes / scan_s / 1e9);
  const double ratio = plain_s / scan_s;
  std::printf("ratio inspect/plain speed: %.2f (goal >= 0.70) %s\n", ratio, ratio >= 0.70 ? "MET" : "NOT MET");
  blasscope::bench::run_sharded_case(gib);
  return 0;
}
