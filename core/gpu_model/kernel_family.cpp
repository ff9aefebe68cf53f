#include "gpu_model/kernel_family.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <utility>
#include <vector>

namespace blasscope::core {

std::string kernel_family(const std::string& name) {
  struct Rule {
    const char* pattern;
    const char* family;
  };
  static const Rule kRules[] = {
      {R"(^sm\d+_xmma_gemm)", "cuBLAS xmma GEMM (tensor cores)"},
      {R"(^sm\d+_xmma)", "cuBLAS xmma"},
      {R"(^nvjet)", "cuBLAS nvjet GEMM (Hopper and later)"},
      {R"(^void cutlass|^cutlass)", "CUTLASS"},
      {R"(ampere_|turing_|volta_|hopper_)", "cuBLAS architecture GEMM"},
      {R"(gemv)", "cuBLAS GEMV"},
      {R"(gemmk1|gemmSN|gemm_kernel|gemmk)", "cuBLAS GEMM"},
      {R"(splitKreduce|reduce)", "cuBLAS split-K reduction"},
      {R"(blasscope_lascl)", "BLAScope DLASCL"},
  };
  static const std::vector<std::pair<std::regex, const char*>> kCompiled = [] {
    std::vector<std::pair<std::regex, const char*>> compiled;
    for (const auto& rule : kRules) compiled.emplace_back(std::regex(rule.pattern), rule.family);
    return compiled;
  }();
  for (const auto& [pattern, family] : kCompiled) {
    if (std::regex_search(name, pattern)) return family;
  }
  return "other";
}

std::string readable_kernel_name(const std::string& name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                         &std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

}  // namespace blasscope::core
