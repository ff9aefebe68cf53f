// blasscope-bench-inspect: times the full `inspect` scan of a 1 GiB float32 .npy against a
// plain multi-threaded memory read of the same mapped bytes, side by side in one run.
// Goal (issue 13): the scan runs at >= 90% of the plain read's speed. The same for a sharded
// checkpoint (bench_sharded.cpp), a 1 GiB contiguous float32 HDF5 dataset (scanned in place),
// and the speed of a chunked+gzip one (decoded by libhdf5) for reference.
#include <fcntl.h>
#include <hdf5.h>
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

// Values like write_npy's, written through libhdf5 in 4 MiB hyperslabs: contiguous, or chunked
// (1 Mi values per chunk) with shuffle+gzip level 1.
void write_hdf5(const std::string& path, std::uint64_t count, bool gzip) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t dims = count;
  const hid_t space = H5Screate_simple(1, &dims, nullptr);
  const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  std::vector<float> chunk(1 << 20);
  if (gzip) {
    const hsize_t chunk_dims = chunk.size();
    H5Pset_chunk(create, 1, &chunk_dims);
    H5Pset_shuffle(create);
    H5Pset_deflate(create, 1);
  }
  const hid_t dataset = H5Dcreate2(
      file, "model_weights/dense/dense/kernel:0", H5T_IEEE_F32LE, space,
      [] {
        const hid_t links = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(links, 1);
        return links;
      }(),
      create, H5P_DEFAULT);
  for (std::uint64_t done = 0; done < count; done += chunk.size()) {
    const hsize_t n = std::min<std::uint64_t>(chunk.size(), count - done), start = done;
    for (std::size_t i = 0; i < n; ++i) chunk[i] = std::sin(static_cast<float>(done + i) * 1e-3f);
    if (done == 0) chunk[12345] = NAN;
    const hid_t memory = H5Screate_simple(1, &n, nullptr);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &n, nullptr);
    H5Dwrite(dataset, H5T_NATIVE_FLOAT, memory, space, H5P_DEFAULT, chunk.data());
    H5Sclose(memory);
  }
  H5Dclose(dataset);
  H5Pclose(create);
  H5Sclose(space);
  H5Fclose(file);
}

void bench_hdf5(std::uint64_t gib) {
  const std::string path = (std::filesystem::temp_directory_path() / "blasscope-bench-inspect.h5").string();
  const std::uint64_t count = gib * (1ull << 30) / 4;
  write_hdf5(path, count, false);
  std::uint64_t checksum = 0, nan = 0;
  plain_read_seconds(path, checksum);  // warm the page cache
  std::vector<double> plain, scan;
  for (int round = 0; round < 5; ++round) {
    plain.push_back(plain_read_seconds(path, checksum));
    scan.push_back(inspect_seconds(path, nan));
  }
  const double bytes = static_cast<double>(count * 4);
  const double plain_s = median(plain), scan_s = median(scan);
  std::printf("hdf5 contiguous: plain read %.2f GB/s, inspect %.2f GB/s (NaN found per run: %llu)\n",
              bytes / plain_s / 1e9, bytes / scan_s / 1e9, static_cast<unsigned long long>(nan / 5));
  const double ratio = plain_s / scan_s;
  std::printf("ratio inspect/plain speed (hdf5 contiguous): %.2f (goal >= 0.90) %s\n", ratio,
              ratio >= 0.90 ? "MET" : "NOT MET");

  const std::uint64_t gzip_count = count / 4;
  write_hdf5(path, gzip_count, true);
  nan = 0;
  std::vector<double> gzip;
  for (int round = 0; round < 3; ++round) gzip.push_back(inspect_seconds(path, nan));
  std::printf(
      "hdf5 chunked shuffle+gzip (%.0f MiB of values, %.0f MiB on disk): inspect %.2f GB/s of values "
      "(libhdf5 decodes on one thread)\n",
      static_cast<double>(gzip_count * 4) / (1 << 20),
      static_cast<double>(std::filesystem::file_size(path)) / (1 << 20),
      static_cast<double>(gzip_count * 4) / median(gzip) / 1e9);
  std::filesystem::remove(path);
}

}  // namespace

int main(int argc, char** argv) {
  // Size in GiB, 4 by default: at 1 GiB a scan takes 30 ms and opening 4 shards and 200 tensors
  // (about 4 ms) weighs as much as the scan; checkpoints worth measuring are tens of GB.
  const std::uint64_t gib = argc > 1 ? std::stoull(argv[1]) : 4;
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
  std::printf("ratio inspect/plain speed: %.2f (goal >= 0.90) %s\n", ratio, ratio >= 0.90 ? "MET" : "NOT MET");
  blasscope::bench::run_sharded_case(gib);
  bench_hdf5(gib);
  return 0;
}
