#pragma once

#include <string>

#include "exec/run_state.h"
#include "gpu_model/gpu_backend.h"
#include "results/kernel_record.h"
#include "workload/workload.h"

namespace blasscope::core {

// The gemm and dlascl ops on the GPU backend, checked and planned exactly as on the CPU;
// the result goes to `out_name` (NAME@gpu when the CPU runs the op too). Throw OpRejected
// and OutOfBudget like the CPU ops.
KernelRecord run_gemm_on_gpu(const OpSpec& op, RunState& state, GpuBackend& gpu, const std::string& out_name);
KernelRecord run_lascl_on_gpu(const OpSpec& op, RunState& state, GpuBackend& gpu, const std::string& out_name);

// The largest normwise relative difference allowed between CPU and GPU results.
double device_tolerance(DType dtype, bool tf32, std::uint64_t k);

// Compares two results of the same shape element by element.
DeviceComparison compare_results(const HostTensor& cpu, const HostTensor& gpu, double tolerance);

}  // namespace blasscope::core
