#include "gpu_model/cupti_setting.h"

#include <algorithm>

namespace blasscope::core {

CuptiSetting parse_cupti_setting(std::string_view text) {
  CuptiSetting s;
  s.text = std::string(text);
  if (text.empty()) return s;
  if (text == "0") {
    s.kernels = s.overhead = s.memcpy = s.memset = s.memory = false;
    return s;
  }
  if (text == "kernels") return s;
  if (text == "all" || text == "api") {
    s.overhead = s.memcpy = s.memset = s.memory = true;
    s.api = text == "api";
    return s;
  }
  CuptiSetting list;
  list.text = s.text;
  list.kernels = list.overhead = list.memcpy = list.memset = list.memory = false;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    std::string_view name = text.substr(begin, comma - begin);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);  // "kernel, memcpy" too
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    bool* flag = name == "kernel" || name == "kernels" ? &list.kernels
                 : name == "overhead"                  ? &list.overhead
                 : name == "memcpy"                    ? &list.memcpy
                 : name == "memset"                    ? &list.memset
                 : name == "memory"                    ? &list.memory
                 : name == "api"                       ? &list.api
                                                       : nullptr;
    if (!flag) {
      s.error = "BLASSCOPE_CUPTI=" + s.text + ": \"" + std::string(name) +
                "\" is none of 0, kernels, all, api or a comma list of kernel, overhead, memcpy, memset, memory, api";
      return s;
    }
    *flag = true;
    begin = comma + 1;
  }
  return list;
}

std::string CuptiSetting::describe() const {
  std::string out;
  auto add = [&](bool on, const char* what) {
    if (on) out += (out.empty() ? "" : ", ") + std::string(what);
  };
  add(kernels, "kernels");
  add(memcpy, "copies");
  add(memset, "memsets");
  add(memory, "allocations");
  add(overhead, "overhead");
  add(api, "API calls");
  return out.empty() ? "nothing" : out;
}

}  // namespace blasscope::core
