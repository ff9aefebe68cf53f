#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace blasscope::test {

// A directory that is removed with everything in it when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return m_path; }
  std::string file(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

void write_file(const std::string& path, const std::string& bytes);
std::string read_file(const std::string& path);
// Runs one of tests/data's generator scripts with NumPy into `outdir`; fails the test if it fails.
void run_data_script(const std::string& script, const std::string& outdir, const std::string& extra = "");
// Builds a little-endian .npy v1.0 stream from a header dict and raw data.
std::string make_npy(const std::string& header_dict, const std::string& data);

}  // namespace blasscope::test
