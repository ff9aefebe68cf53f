#include "cupti_tracer.h"

#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "gpu_model/device_activity.h"

namespace blasscope::gpu {
namespace {

using core::ActivityRecordView;

// The activity kinds a setting asks for, and why each. Records are placed on ops by CUPTI
// timestamps: each op's window spans all of its device work, and ops run one after another.
std::vector<CUpti_ActivityKind> kinds_of(const core::CuptiSetting& s) {
  std::vector<CUpti_ActivityKind> kinds;
  if (s.kernels) kinds.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);  // grid, block, start and end
  if (s.overhead) kinds.push_back(CUPTI_ACTIVITY_KIND_OVERHEAD);          // CUPTI's and the driver's own
  if (s.memcpy) kinds.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);              // host <-> device copies
  if (s.memset) kinds.push_back(CUPTI_ACTIVITY_KIND_MEMSET);              // cuBLAS clears workspaces
  if (s.memory) kinds.push_back(CUPTI_ACTIVITY_KIND_MEMORY2);             // device allocations and frees
  if (s.api) {
    // BLAScope's op index on every API call (external correlation): CUPTI writes those
    // records for API records only, so every runtime and driver call is traced too.
    for (auto k : {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER}) {
      kinds.push_back(k);
    }
  }
  return kinds;
}

constexpr std::size_t kBufferBytes = 4 << 20;
constexpr std::size_t kBufferAlignment = 8;

std::mutex g_mutex;
// Set once, by the first start(): later backends share the process's tracing.
bool g_correlated = false;                  // setting.api: op ids pushed as external correlation
std::vector<CUpti_ActivityKind> g_enabled;  // what start() enabled, for pause()
core::CuptiSetting g_applied;               // the setting those kinds came from
core::ActivityCollector g_collector;        // guarded by g_mutex

const char* memcpy_name(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    default: return "copy";
  }
}

ActivityRecordView view_of(const CUpti_Activity* record) {
  ActivityRecordView v;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      v.kind = ActivityRecordView::Kind::Kernel;
      v.name = k->name ? k->name : "?";
      v.start_ns = k->start;
      v.end_ns = k->end;
      v.correlation_id = k->correlationId;
      v.grid[0] = k->gridX, v.grid[1] = k->gridY, v.grid[2] = k->gridZ;
      v.block[0] = k->blockX, v.block[1] = k->blockY, v.block[2] = k->blockZ;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      v.kind = ActivityRecordView::Kind::Memcpy;
      v.name = memcpy_name(m->copyKind);
      v.start_ns = m->start;
      v.end_ns = m->end;
      v.correlation_id = m->correlationId;
      v.bytes = m->bytes;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      v.kind = ActivityRecordView::Kind::Memset;
      v.name = "memset";
      v.start_ns = m->start;
      v.end_ns = m->end;
      v.correlation_id = m->correlationId;
      v.bytes = m->bytes;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(record);
      v.kind = ActivityRecordView::Kind::Memory;
      v.name = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION ? "allocate" : "free";
      v.start_ns = v.end_ns = m->timestamp;
      v.correlation_id = m->correlationId;
      v.bytes = m->bytes;
      break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
      v.kind = ActivityRecordView::Kind::Overhead;
      v.name = "overhead";
      v.start_ns = o->start;
      v.end_ns = o->end;
      break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      v.kind = ActivityRecordView::Kind::ExternalCorrelation;
      v.correlation_id = e->correlationId;
      v.external_id = e->externalId;
      break;
    }
    default: break;
  }
  return v;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

// Called by CUPTI (possibly on its own thread): copy the records out and return fast.
void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  std::vector<ActivityRecordView> views;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) views.push_back(view_of(record));
  std::size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(context, stream, &dropped);
  std::free(buffer);
  std::lock_guard lock(g_mutex);
  for (const auto& v : views) g_collector.add(v);
  g_collector.add_dropped(dropped);
}

std::string cupti_error(CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(result));
}

}  // namespace

bool CuptiTracer::start(const core::CuptiSetting& setting, std::string& why_not, core::CuptiSetting& applied) {
  // Once per process: every backend made later (one per run) shares the same callbacks, and
  // the first backend's choice of kinds.
  static std::string failure;
  static const bool started = [&setting] {
    CUptiResult result = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    std::vector<CUpti_ActivityKind> enabled;
    {
      std::lock_guard lock(g_mutex);
      g_collector.set_correlated(setting.api);
    }
    g_correlated = setting.api;
    for (CUpti_ActivityKind kind : kinds_of(setting)) {
      if (result != CUPTI_SUCCESS) break;
      result = cuptiActivityEnable(kind);
      if (result == CUPTI_SUCCESS) enabled.push_back(kind);
    }
    if (result == CUPTI_SUCCESS) {
      g_enabled = enabled;
      g_applied = setting;
      return true;
    }
    for (CUpti_ActivityKind kind : enabled) cuptiActivityDisable(kind);  // no half-on tracing
    failure = "CUPTI unavailable: " + cupti_error(result);
    if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
      failure += " (profiling needs NVreg_RestrictProfilingToAdminUsers=0 or root); timings come from CUDA events";
    }
    return false;
  }();
  if (!started) why_not = failure;
  applied = g_applied;
  return started;
}

namespace {

std::uint64_t cupti_now() {
  std::uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

}  // namespace

void CuptiTracer::begin_op(std::size_t op) {
  {
    std::lock_guard lock(g_mutex);
    g_collector.begin_op(op, cupti_now());
  }
  if (g_correlated) cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, op + 1);
}

void CuptiTracer::end_op() {
  std::uint64_t last = 0;
  if (g_correlated) cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
  std::lock_guard lock(g_mutex);
  g_collector.end_op(cupti_now());
}

bool CuptiTracer::pause(bool paused) {
  bool done = true;
  for (CUpti_ActivityKind kind : g_enabled) {
    done &= (paused ? cuptiActivityDisable(kind) : cuptiActivityEnable(kind)) == CUPTI_SUCCESS;
  }
  return done;
}

std::vector<core::GpuOpActivity> CuptiTracer::take_all(bool flush) {
  // Once per run: the caller has synchronised, so every record is complete.
  if (flush) cuptiActivityFlushAll(0);
  std::lock_guard lock(g_mutex);
  std::vector<core::GpuOpActivity> activity;
  for (auto& [op, events] : g_collector.take_all()) {
    activity.push_back({op, std::move(events), g_collector.dropped()});
  }
  return activity;
}

}  // namespace blasscope::gpu
