#include "analysis/stats_scanner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "analysis/stats_kernels.h"
#include "io/inflate_reader.h"
#include "io/input_error.h"
#include "tensor/byte_swap.h"

namespace blasscope::core {
namespace {

constexpr std::uint64_t kUnitBytes = 8 << 20;       // work unit handed to one thread
constexpr std::uint64_t kParallelBytes = 32 << 20;  // smaller tensors use one thread
constexpr std::uint64_t kSwapBytes = 64 << 10;      // byte-swap buffer, stays in L2
constexpr std::uint64_t kInflateBytes = 4 << 20;    // inflate buffer for deflated members

TensorStats scan_range(DType dtype, ByteOrder order, const std::byte* data, std::uint64_t count,
                       std::uint64_t first_index) {
  const std::size_t size = item_size(dtype);
  const std::size_t width = swap_width(dtype);
  if (order != ByteOrder::Big || width == 1) return scan_values(dtype, data, count, first_index);
  std::vector<std::byte> swapped(kSwapBytes);
  const std::uint64_t per_buffer = kSwapBytes / size;
  TensorStats total;
  for (std::uint64_t start = 0; start < count; start += per_buffer) {
    const std::uint64_t n = std::min(per_buffer, count - start);
    const std::byte* src = data + start * size;
    copy_swapped(src, swapped.data(), n * size, width);
    merge_stats(total, scan_values(dtype, swapped.data(), n, first_index + start));
  }
  return total;
}

void report(const ScanOptions& options, std::uint64_t done, std::uint64_t total) {
  if (options.progress) options.progress(done, total);
}

TensorStats scan_in_parallel(DType dtype, ByteOrder order, std::span<const std::byte> bytes,
                             const ScanOptions& options) {
  const std::size_t size = item_size(dtype);
  const std::uint64_t count = bytes.size() / size;
  const std::uint64_t unit = std::max<std::uint64_t>(kUnitBytes / size, 1);
  const std::uint64_t units = (count + unit - 1) / unit;
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  if (bytes.size() < kParallelBytes) threads = 1;
  threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, std::max<std::uint64_t>(units, 1)));

  std::atomic<std::uint64_t> next_unit{0};
  std::atomic<std::uint64_t> bytes_done{0};
  std::atomic<bool> cancelled{false};
  std::mutex merge_mutex;
  TensorStats total;
  auto work = [&](bool caller) {
    TensorStats mine;
    for (std::uint64_t u; (u = next_unit.fetch_add(1)) < units;) {
      if (cancelled.load(std::memory_order_relaxed)) break;
      if (caller && options.stop.stop_requested()) {
        cancelled = true;
        break;
      }
      const std::uint64_t first = u * unit;
      const std::uint64_t n = std::min(unit, count - first);
      merge_stats(mine, scan_range(dtype, order, bytes.data() + first * size, n, first));
      const std::uint64_t done = bytes_done.fetch_add(n * size) + n * size;
      if (caller) report(options, done, bytes.size());
    }
    std::lock_guard lock(merge_mutex);
    merge_stats(total, mine);
  };
  std::atomic<unsigned> helpers_running{threads - 1};
  std::vector<std::jthread> helpers;
  for (unsigned t = 1; t < threads; ++t) {
    helpers.emplace_back([&] {
      work(false);
      --helpers_running;
    });
  }
  work(true);
  // Progress goes on while helpers finish the last units (reported from this thread only).
  for (std::uint64_t reported = 0; helpers_running.load() > 0 && options.progress;) {
    if (options.stop.stop_requested()) cancelled = true;
    const std::uint64_t done = bytes_done.load();
    if (done != reported) report(options, reported = done, bytes.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  helpers.clear();  // joins
  // A stop that came while the last units were scanned still cancels: the caller asked for it.
  if (cancelled || options.stop.stop_requested()) throw ScanCancelled();
  report(options, bytes.size(), bytes.size());
  return total;
}

TensorStats scan_deflated(const TensorFile& file, const TensorInfo& tensor, const ScanOptions& options) {
  const auto& storage = tensor.storage;
  InflateReader reader(mapping_of(file, tensor).bytes().subspan(storage.stream_offset, storage.stream_size),
                       storage.member_size, storage.crc32, tensor.name);
  reader.skip(tensor.data_offset);
  const std::size_t size = item_size(tensor.dtype);
  std::vector<std::byte> buffer(std::max<std::uint64_t>(kInflateBytes / size, 1) * size);
  TensorStats total;
  std::uint64_t index = 0;
  std::uint64_t done = 0;
  while (done < tensor.nbytes) {
    if (options.stop.stop_requested()) throw ScanCancelled();
    const std::size_t want = std::min<std::uint64_t>(buffer.size(), tensor.nbytes - done);
    const std::size_t got = reader.read(std::span(buffer).first(want));
    if (got != want) break;  // the reader has already thrown for a short stream
    const std::uint64_t n = got / size;
    merge_stats(total, scan_range(tensor.dtype, tensor.byte_order, buffer.data(), n, index));
    index += n;
    done += got;
    report(options, done, tensor.nbytes);
  }
  // A PyTorch view may end before its storage does; the rest is inflated to check the CRC-32.
  reader.skip(storage.member_size - tensor.data_offset - tensor.nbytes);
  reader.finish();
  return total;
}

// Chunked or filtered HDF5 data: the stream decodes it block by block into a bounded buffer.
TensorStats scan_streamed(const TensorInfo& tensor, const ScanOptions& options) {
  const auto stream = tensor.storage.source->open(tensor);
  const std::size_t size = item_size(tensor.dtype);
  std::vector<std::byte> buffer(std::max<std::uint64_t>(kInflateBytes / size, 1) * size);
  TensorStats total;
  std::uint64_t done = 0;
  while (done < tensor.nbytes) {
    if (options.stop.stop_requested()) throw ScanCancelled();
    const std::size_t want = std::min<std::uint64_t>(buffer.size(), tensor.nbytes - done);
    const std::size_t got = stream->read(std::span(buffer).first(want));
    if (got != want) fail_malformed("tensor '" + tensor.name + "': its data ends early");
    merge_stats(total, scan_range(tensor.dtype, tensor.byte_order, buffer.data(), got / size, done / size));
    done += got;
    report(options, done, tensor.nbytes);
  }
  return total;
}

}  // namespace

TensorStats scan_bytes(DType dtype, ByteOrder order, std::span<const std::byte> bytes, const ScanOptions& options) {
  return scan_in_parallel(dtype, order, bytes, options);
}

std::optional<TensorStats> scan_tensor(const TensorFile& file, const TensorInfo& tensor, const ScanOptions& options) {
  if (!tensor.values_readable()) return std::nullopt;
  if (tensor.storage.kind == TensorStorage::Kind::Deflated) return scan_deflated(file, tensor, options);
  if (tensor.storage.kind == TensorStorage::Kind::Streamed) return scan_streamed(tensor, options);
  mapping_of(file, tensor).advise_sequential(tensor.data_offset, tensor.nbytes);
  return scan_in_parallel(tensor.dtype, tensor.byte_order,
                          mapping_of(file, tensor).bytes().subspan(tensor.data_offset, tensor.nbytes), options);
}

}  // namespace blasscope::core
