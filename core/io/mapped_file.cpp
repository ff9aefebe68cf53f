#include "io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/input_error.h"

namespace blasscope::core {
namespace {

[[noreturn]] void fail_unreadable(const std::string& what, int error) {
  throw InputError(InputError::Kind::Unreadable, what + ": " + std::strerror(error));
}

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

}  // namespace

MappedFile::MappedFile(const std::string& path) : m_path(path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; the
  // fstat below refuses it. For a regular file the flag changes nothing.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail_unreadable("cannot open", errno);
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail_unreadable("cannot stat", errno);
  if (S_ISDIR(st.st_mode)) throw InputError(InputError::Kind::Unreadable, "is a directory");
  if (!S_ISREG(st.st_mode)) throw InputError(InputError::Kind::Unreadable, "not a regular file");
  m_size = static_cast<std::size_t>(st.st_size);
  if (m_size == 0) return;
  void* addr = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (addr == MAP_FAILED) fail_unreadable("cannot map into memory", errno);
  m_data = static_cast<const std::byte*>(addr);
}

MappedFile::~MappedFile() {
  if (m_data != nullptr) ::munmap(const_cast<std::byte*>(m_data), m_size);
}

void MappedFile::advise_sequential(std::uint64_t offset, std::uint64_t length) const {
  if (m_data == nullptr || length == 0) return;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t start = offset / page * page;
  ::madvise(const_cast<std::byte*>(m_data) + start, offset + length - start, MADV_SEQUENTIAL);
}

}  // namespace blasscope::core
