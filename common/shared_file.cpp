#include "common/shared_file.h"

#include <fcntl.h>
#include <sys/stat.h>

namespace rgpu {

bool is_sealed_file_of(int fd, uint64_t end) {
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) < end) return false;
  const int seals = ::fcntl(fd, F_GET_SEALS);
  return seals >= 0 && (seals & F_SEAL_SHRINK);
}

}  // namespace rgpu
