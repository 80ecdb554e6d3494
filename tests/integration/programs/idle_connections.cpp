// Opens N TCP connections to HOST:PORT that never send a byte, says how many it holds, and keeps
// them open for S seconds: the flood of unauthenticated peers that rgpud must shrug off
// (run_reliability_tests.sh). Connections the server closes meanwhile are simply left closed.
//   usage: idle_connections HOST:PORT N S
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: idle_connections HOST:PORT N SECONDS\n");
    return 2;
  }
  const std::string address = argv[1];
  const long want = std::atol(argv[2]);
  const unsigned hold = static_cast<unsigned>(std::atol(argv[3]));
  const size_t colon = address.rfind(':');
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(std::atoi(address.c_str() + colon + 1)));
  if (colon == std::string::npos || inet_pton(AF_INET, address.substr(0, colon).c_str(), &sa.sin_addr) != 1) {
    std::fprintf(stderr, "idle_connections: %s is not IPv4-address:port\n", address.c_str());
    return 2;
  }
  // As many descriptors as the host allows; fewer connections than asked where it allows fewer.
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    limit.rlim_cur = limit.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &limit);
  }
  std::vector<int> fds;
  const char* stopped = "";
  for (long i = 0; i < want; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      stopped = std::strerror(errno);
      break;
    }
    if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
      stopped = std::strerror(errno);
      ::close(fd);
      break;
    }
    fds.push_back(fd);
  }
  std::printf("holding %zu idle connections%s%s\n", fds.size(), *stopped ? "; stopped: " : "", stopped);
  std::fflush(stdout);
  sleep(hold);
  for (int fd : fds) ::close(fd);
  return 0;
}
