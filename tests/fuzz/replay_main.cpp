// Runs a fuzz harness over files without libFuzzer: each argument is a file or a folder of
// them. The normal and sanitizer builds use it so every regression file (an input that once
// crashed a reader) and every seed stays refused cleanly; it prints how many files it ran.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

void replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path = argv[i];
    if (std::filesystem::is_directory(path)) {
      std::vector<std::filesystem::path> files;
      // NAME-known/ folders keep inputs that crash inside a third-party library we cannot guard
      // against (see their README); they are kept for the record, not replayed.
      for (auto it = std::filesystem::recursive_directory_iterator(path); it != decltype(it){}; ++it) {
        if (it->is_directory() && it->path().filename().string().ends_with("-known")) it.disable_recursion_pending();
        else if (it->is_regular_file()) files.push_back(it->path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& file : files) replay(file), ++count;
    } else if (std::filesystem::is_regular_file(path)) {
      replay(path);
      ++count;
    } else {
      std::fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
      return 2;
    }
  }
  std::printf("replayed %zu inputs, none crashed\n", count);
  return count == 0 ? 1 : 0;
}
