#include "analysis/tensor_findings.h"

#include <sstream>

#include "analysis/tensor_layout.h"
#include "text/format.h"

namespace blasscope::core {
namespace {

std::string value_word(const TensorInfo& tensor) {
  return kind(tensor.dtype) == DTypeKind::Complex ? "components" : "values";
}

// Turns a flat storage-order index into a NumPy index tuple like (3, 1).
}  // namespace

std::string index_tuple(const TensorInfo& tensor, std::uint64_t flat) {
  if (kind(tensor.dtype) == DTypeKind::Complex) flat /= 2;
  return format_shape(unravel_storage_index(flat, tensor.shape, tensor.order));
}

std::vector<Detection> findings_for_values(const TensorInfo& tensor, const TensorStats& stats) {
  std::vector<Detection> findings;
  const std::uint64_t total = stats.nonfinite() + stats.finite;
  if (stats.nonfinite() > 0) {
    std::ostringstream message;
    message << stats.nan << " NaN, " << stats.posinf << " +Inf and " << stats.neginf << " -Inf among " << total << ' '
            << value_word(tensor);
    if (stats.first_nonfinite) message << "; the first at index " << index_tuple(tensor, *stats.first_nonfinite);
    message << ". BLAS propagates them into every output they touch, and LAPACK drivers such as gesdd/gelsd "
               "fail on them (DLASCL parameter 4).";
    findings.push_back({"non-finite-input", Severity::Warning, std::nullopt, tensor.name, message.str()});
  }
  if (stats.subnormal > 0) {
    std::ostringstream message;
    message << stats.subnormal << " subnormal " << value_word(tensor) << " (nonzero but below the smallest normal "
            << name(tensor.dtype) << "). Arithmetic on them can be many times slower on x86 CPUs, and they "
            << "become zero where flush-to-zero is enabled (GPUs, -ffast-math).";
    findings.push_back({"subnormal-values", Severity::Warning, std::nullopt, tensor.name, message.str()});
  }
  return findings;
}

}  // namespace blasscope::core
