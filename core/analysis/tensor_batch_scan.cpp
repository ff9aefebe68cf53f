#include "analysis/tensor_batch_scan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace blasscope::core {

bool scans_single_threaded(const TensorInfo& tensor) {
  return tensor.storage.kind == TensorStorage::Kind::Deflated || tensor.nbytes < kBatchScanMaxBytes;
}

void scan_batch(const TensorFile& file, std::size_t first, std::size_t last, const ScanOptions& options,
                std::vector<std::optional<TensorStats>>& results, const std::function<void(std::uint64_t)>& progress,
                const std::function<void(std::size_t)>& done) {
  if (first >= last) return;  // no thread would run, and the wait below would never end
  const std::size_t count = last - first;
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, count));

  // One stop for the pool: the caller's, or the first failing tensor's.
  std::stop_source pool_stop;
  const std::stop_callback forward(options.stop, [&] { pool_stop.request_stop(); });
  std::atomic<std::size_t> next{first};
  std::mutex mutex;
  std::condition_variable finished_one;
  std::deque<std::size_t> finished;  // indices scanned, not yet handed to `done`
  std::vector<std::exception_ptr> errors(count);
  unsigned running = threads;  // scanning threads, the caller included
  std::uint64_t bytes_done = 0;

  // Hands the finished tensors to the callbacks, on the calling thread only, in the order
  // they finished. Returns whether every scanning thread has stopped.
  auto deliver = [&](bool wait) {
    std::deque<std::size_t> ready;
    bool all_stopped = false;
    {
      std::unique_lock lock(mutex);
      if (wait) {
        finished_one.wait_for(lock, std::chrono::milliseconds(50), [&] { return !finished.empty() || running == 0; });
      }
      ready.swap(finished);
      all_stopped = running == 0;
    }
    for (const std::size_t i : ready) {
      if (pool_stop.stop_requested()) break;
      bytes_done += file.tensors[i].nbytes;
      if (progress) progress(bytes_done);
      if (done) done(i);
    }
    return all_stopped;
  };
  // The caller scans too (a third thread on two cores would only take turns with them), and
  // between its tensors delivers what everyone has finished.
  auto work = [&](bool caller) {
    ScanOptions single;
    single.threads = 1;
    single.stop = pool_stop.get_token();
    for (std::size_t i; !pool_stop.stop_requested() && (i = next.fetch_add(1)) < last;) {
      try {
        results[i] = scan_tensor(file, file.tensors[i], single);
      } catch (const ScanCancelled&) {
        break;
      } catch (...) {
        errors[i - first] = std::current_exception();
        pool_stop.request_stop();
        break;
      }
      {
        std::lock_guard lock(mutex);
        finished.push_back(i);
        finished_one.notify_one();
      }
      if (caller) deliver(false);
    }
    std::lock_guard lock(mutex);
    --running;
    finished_one.notify_one();
  };
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, false);
  work(true);
  while (!deliver(true)) {
  }
  pool.clear();  // joins
  if (options.stop.stop_requested()) throw ScanCancelled();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace blasscope::core
