#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "analysis/detection.h"
#include "results/kernel_record.h"
#include "results/run_environment.h"

namespace blasscope::core {

// The events of a run, as the worker emits them and a collector reduces them. Their JSON
// form (the worker's stream, session files) is written and read only by event_codec.
namespace events {

struct RunStarted {
  std::string workload, description;
  std::uint64_t memory_limit = 0, predicted_peak_bytes = 0;
  std::size_t ops = 0;
  RunEnvironment environment;
  std::optional<std::uint64_t> recorded_call;  // Workload::recorded_call
};

struct KernelStarted {
  std::size_t op = 0;
  OpKind op_kind = OpKind::Gemm;
  std::string kernel;
  Device device = Device::Cpu;
  // What a front end needs to tell a hung kernel from a long one: the work the op does
  // (floating-point operations, estimated) and the NaN/Inf its inputs hold.
  std::uint64_t flops = 0;
  std::uint64_t input_nan = 0, input_inf = 0;
  // Its dtype and sizes, for the op tables of a run that stopped inside it.
  std::optional<DType> dtype = {};
  std::optional<std::int64_t> m = {}, n = {}, k = {};
};

struct KernelFinished {
  KernelRecord record;
};

// OpenBLAS's xerbla was called during the op.
struct Xerbla {
  std::size_t op = 0;
  XerblaRecord call;
};

struct TensorAllocated {
  std::string tensor;
  DType dtype = DType::Float64;
  std::vector<std::uint64_t> shape;
  MemoryOrder order = MemoryOrder::C;
  std::uint64_t bytes = 0, alignment = 0;
  std::string source;  // what made it: the workload's fill, a file, an op
};

struct TensorFreed {
  std::string tensor;
  std::uint64_t bytes = 0;
};

// LAPACK workspace taken or given back by an op.
struct Workspace {
  bool allocated = true;
  std::size_t op = 0;
  std::string workspace;  // "gesdd workspace", "gesdd integer workspace", ...
  std::uint64_t bytes = 0;
};

// A GPU buffer BLAScope allocated or freed for an op.
struct DeviceBuffer {
  bool allocated = true;
  std::size_t op = 0;
  std::string buffer;
  std::uint64_t bytes = 0;
};

// Host memory charged to the run's budget, after a change.
struct HostMemory {
  std::uint64_t host_bytes = 0;
};

struct OutOfMemory {
  std::string tensor;
  std::optional<std::size_t> op;
  std::uint64_t requested = 0, available = 0, limit = 0;
  std::string message;
};

struct FindingRaised {
  Detection finding;
};

// An input tensor could not be read from its file.
struct TensorError {
  std::string tensor, message;
};

struct Comparison {
  DeviceComparison comparison;
};

// --save-outputs: an op's output written, or why not.
struct OutputSaved {
  std::size_t op = 0;
  std::string tensor;
  std::string path;   // when written
  std::string error;  // when not
};

// CUPTI's records of one GPU op, delivered after the run's last op.
struct DeviceActivity {
  std::size_t op = 0;
  std::vector<DeviceEventRecord> device_events;
  std::uint64_t cupti_dropped = 0;
};

struct Done {
  std::uint64_t peak_host_bytes = 0;
};

// The worker refused the workload (exit 3).
struct Rejected {
  std::string message;
};

// The worker died (added by whoever watched it: the worker cannot say so itself).
struct Crashed {
  std::string signal;
  std::string output;  // the end of what the worker wrote on stderr, when it was kept
};

}  // namespace events

using RunEventBody = std::variant<events::RunStarted, events::KernelStarted, events::KernelFinished, events::Xerbla,
                                  events::TensorAllocated, events::TensorFreed, events::Workspace, events::DeviceBuffer,
                                  events::HostMemory, events::OutOfMemory, events::FindingRaised, events::TensorError,
                                  events::Comparison, events::OutputSaved, events::DeviceActivity, events::Done,
                                  events::Rejected, events::Crashed>;

struct RunEvent {
  double t = 0;  // seconds since the run started
  RunEventBody body;

  template <typename T>
  const T* as() const {
    return std::get_if<T>(&body);
  }
};

}  // namespace blasscope::core
