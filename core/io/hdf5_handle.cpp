#include "io/hdf5_handle.h"

#include <vector>

#include "io/input_error.h"

namespace blasscope::core {
namespace {

herr_t collect(unsigned, const H5E_error2_t* error, void* data) {
  auto& lines = *static_cast<std::vector<std::string>*>(data);
  if (lines.size() < 8 && error && error->desc && *error->desc) lines.emplace_back(error->desc);
  return 0;
}

}  // namespace

void hdf5_quiet() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

std::string hdf5_error_text() {
  std::vector<std::string> lines;
  // Innermost first: the frame that saw the bad bytes says the most.
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect, &lines);
  H5Eclear2(H5E_DEFAULT);
  std::string text;
  for (const std::string& line : lines) {
    if (text.find(line) != std::string::npos) continue;
    if (!text.empty()) text += "; ";
    text += line;
  }
  return text;
}

Hid hdf5_check(hid_t id, Hid::Close close, const std::string& what) {
  if (id < 0) hdf5_check(herr_t{-1}, what);
  return Hid(id, close);
}

void hdf5_check(herr_t status, const std::string& what) {
  if (status >= 0) return;
  const std::string stack = hdf5_error_text();
  fail_malformed(stack.empty() ? what : what + " (libhdf5: " + stack + ")");
}

}  // namespace blasscope::core
