#include "test_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace blasscope::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "blasscope-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  m_path = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void run_data_script(const std::string& script, const std::string& outdir, const std::string& extra) {
  const std::string command = std::string(BLASSCOPE_PYTHON) + " " + BLASSCOPE_TEST_DATA_SCRIPTS + "/" + script + " '" +
                              outdir + "' " + extra + " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << "failed: " << command << " (is python3-numpy installed?)";
}

std::string make_npy(const std::string& header_dict, const std::string& data) {
  std::string header = header_dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

}  // namespace blasscope::test
