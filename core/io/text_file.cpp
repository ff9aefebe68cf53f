#include "io/text_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/input_error.h"

namespace blasscope::core {

void write_text_file(const std::string& path, const std::string& content) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  auto fail = [&path](int error) {
    throw InputError(InputError::Kind::Unreadable, "cannot write " + path + ": " + std::strerror(error));
  };
  if (!file) fail(errno);
  const std::size_t written = std::fwrite(content.data(), 1, content.size(), file);
  const int write_error = written == content.size() ? 0 : (errno ? errno : EIO);
  const bool flushed = std::fflush(file) == 0;
  const int flush_error = flushed ? 0 : errno;
  const bool closed = std::fclose(file) == 0;
  if (write_error) fail(write_error);
  if (!flushed) fail(flush_error);
  if (!closed) fail(errno);
}

}  // namespace blasscope::core
