#include "io/text_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/input_error.h"

namespace blasscope::core {

namespace {

// Writes all of `content` to `path` as it is (no rename): the error names the failing step.
// `named`: the file the user asked for, which errors name (not the temporary written beside it).
void write_in_place(const std::string& path, const std::string& content, const std::string& named) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  auto fail = [&named](int error) {
    throw InputError(InputError::Kind::Unreadable, "cannot write " + named + ": " + std::strerror(error));
  };
  if (!file) fail(errno);
  errno = 0;
  const std::size_t written = std::fwrite(content.data(), 1, content.size(), file);
  const int write_error = written == content.size() ? 0 : (errno ? errno : EIO);
  errno = 0;
  const bool flushed = std::fflush(file) == 0;
  const int flush_error = flushed ? 0 : (errno ? errno : EIO);
  errno = 0;
  const bool closed = std::fclose(file) == 0;
  const int close_error = closed ? 0 : (errno ? errno : EIO);
  if (write_error) fail(write_error);
  if (!flushed) fail(flush_error);
  if (!closed) fail(close_error);
}

}  // namespace

std::string read_text_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(InputError::Kind::Unreadable, "cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  std::string text;
  std::size_t size = 0;
  try {
    text.resize(regular ? static_cast<std::size_t>(st.st_size) + 1 : std::size_t{1} << 16);
    while (true) {
      // One byte more than the file holds: a file that grew meanwhile is read on, not cut.
      if (size == text.size()) text.resize(text.size() * 2);
      const ssize_t got = ::read(fd, text.data() + size, text.size() - size);
      if (got == 0) break;
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        const int error = errno;
        ::close(fd);
        throw InputError(InputError::Kind::Unreadable, "cannot read " + path + ": " + std::strerror(error));
      }
      size += static_cast<std::size_t>(got);
    }
  } catch (const std::bad_alloc&) {
    ::close(fd);
    throw InputError(InputError::Kind::Unreadable, "cannot read " + path + ": not enough memory for it");
  }
  ::close(fd);
  text.resize(size);
  return text;
}

void write_text_file(const std::string& path, const std::string& content) {
  // A regular file is written beside itself and renamed over, so a full disk leaves the old
  // file whole; a device or a pipe (/dev/stdout) is written in place.
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    return write_in_place(path, content, path);
  }
  const std::string temporary = path + ".part";
  try {
    write_in_place(temporary, content, path);
  } catch (const InputError&) {
    std::filesystem::remove(temporary, error);
    throw;  // names `path` and the system's reason
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int rename_error = errno;
    std::filesystem::remove(temporary, error);
    throw InputError(InputError::Kind::Unreadable, "cannot write " + path + ": " + std::strerror(rename_error));
  }
}

}  // namespace blasscope::core
