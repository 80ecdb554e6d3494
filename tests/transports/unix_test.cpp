// Unix-socket specifics (the conformance suite covers the Connection itself): addresses, the socket
// file's life (stale, live, not a socket, permissions, umask, removal), the peer's credentials, and
// the peer's silence as this side tells it.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/transports/connected_pair.h"
#include "transports/transport.h"
#include "transports/unix/unix_address.h"
#include "transports/unix/unix_connection.h"

using namespace rgpu;
using Catch::Contains;
using test::connect_pair;
using test::unix_address;

namespace {

std::string path_of(const std::string& address) { return address.substr(5); }

bool exists(const std::string& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0;
}

// A socket file nobody listens on, as a killed daemon leaves it: bound, then closed.
void leave_stale_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  ::close(fd);
  REQUIRE(exists(path));
}

}  // namespace

TEST_CASE("unix: addresses name a socket file's path") {
  using transport::unix_socket::parse_address;
  CHECK(parse_address("unix:/run/rgpu/rgpud.sock").value() == "/run/rgpu/rgpud.sock");
  CHECK(parse_address("unix:relative.sock").value() == "relative.sock");
  CHECK_THAT(parse_address("unix:").status().message(), Contains("path"));
  CHECK_THAT(parse_address("unix:/" + std::string(200, 'x')).status().message(), Contains("longer than the 107 bytes"));
  CHECK(parse_address("127.0.0.1:7070").status().code() == Code::kInvalidArgument);
}

TEST_CASE("unix: each end names the other process as the kernel saw it") {
  const std::string address = unix_address("credentials.sock");
  auto pair = connect_pair(address);
  const std::string who = "pid=" + std::to_string(getpid()) + " uid=" + std::to_string(getuid()) +
                          " gid=" + std::to_string(getgid());
  CHECK(pair.server->peer() == "unix " + who);  // a client's socket has no name
  CHECK(pair.client->peer() == "unix " + path_of(address) + " " + who);
  CHECK(pair.server->descriptor() >= 0);
  CHECK_FALSE(pair.server->encrypted());

  Result<transport::AcceptedPeer> peer = transport::accepted_peer(pair.server->descriptor());
  REQUIRE(peer.is_ok());
  CHECK(peer->text == pair.server->peer());
  CHECK(peer->origin == "uid " + std::to_string(getuid()));
  CHECK(peer->local);
  CHECK(peer->unix_socket);
  CHECK(peer->pid == static_cast<uint32_t>(getpid()));
}

TEST_CASE("unix: connections are close-on-exec") {
  auto pair = connect_pair(unix_address("cloexec.sock"));
  CHECK((::fcntl(pair.client->descriptor(), F_GETFD) & FD_CLOEXEC) != 0);
  CHECK((::fcntl(pair.server->descriptor(), F_GETFD) & FD_CLOEXEC) != 0);
  CHECK((::fcntl(pair.listener->native_handle(), F_GETFD) & FD_CLOEXEC) != 0);
}

TEST_CASE("unix: the listener replaces a stale socket file and removes its own at the end") {
  const std::string address = unix_address("stale.sock");
  leave_stale_socket(path_of(address));
  {
    auto pair = connect_pair(address);  // listens where the stale file was, and is reachable
    CHECK(exists(path_of(address)));
  }
  CHECK_FALSE(exists(path_of(address)));
}

TEST_CASE("unix: a path where another listener is, or that is not a socket, is refused and left alone") {
  SECTION("a live listener") {
    const std::string address = unix_address("live.sock");
    auto first = transport::listen(address);
    REQUIRE(first.is_ok());
    auto second = transport::listen(address);
    REQUIRE_FALSE(second.is_ok());
    CHECK_THAT(second.status().message(), Contains("another process listens on it"));
    // The first still serves.
    auto accepted = std::async(std::launch::async, [&] { return (*first)->accept(); });
    CHECK(transport::connect(address).is_ok());
    CHECK(accepted.get().is_ok());
  }
  SECTION("a regular file") {
    const std::string address = unix_address("file.sock");
    { std::ofstream(path_of(address)) << "keep me"; }
    auto listener = transport::listen(address);
    REQUIRE_FALSE(listener.is_ok());
    CHECK_THAT(listener.status().message(), Contains("exists and is not a socket"));
    std::string text;
    std::getline(std::ifstream(path_of(address)), text);
    CHECK(text == "keep me");
  }
}

TEST_CASE("unix: the socket file takes the process's umask, a forked child's copy does not remove it") {
  const std::string address = unix_address("umask.sock");
  const mode_t old = ::umask(077);
  auto listener = transport::listen(address);
  ::umask(old);
  REQUIRE(listener.is_ok());
  struct stat st{};
  REQUIRE(::lstat(path_of(address).c_str(), &st) == 0);
  CHECK(S_ISSOCK(st.st_mode));
  CHECK((st.st_mode & 0777) == 0700);

  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    listener->reset();  // a session worker's copy, destroyed
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(exists(path_of(address)));
}

// The socket's permissions are the operator's to set: connecting needs write permission on the
// file. Root passes any permission check, so as root the refused connect is tried from a child that
// has become nobody (65534).
TEST_CASE("unix: a client without permission on the socket file is refused") {
  const std::string address = unix_address("denied.sock");
  auto listener = transport::listen(address);
  REQUIRE(listener.is_ok());
  REQUIRE(::chmod(path_of(address).c_str(), 0) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (getuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) _exit(2);
    auto conn = transport::connect(address);
    if (conn.is_ok()) _exit(3);
    _exit(conn.status().message().find("Permission denied") != std::string::npos ? 0 : 4);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 2: could not become nobody; 3: connected; 4: another error
}

TEST_CASE("unix: the peer's silence is counted from the last bytes received, and waiting bytes are life") {
  auto pair = connect_pair(unix_address("silence.sock"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto quiet = pair.client->peer_silence();
  REQUIRE(quiet.has_value());
  CHECK(quiet->since_data >= std::chrono::milliseconds(250));
  CHECK(quiet->unacknowledged_for.count() == 0);

  const uint8_t byte = 1;
  iovec one{const_cast<uint8_t*>(&byte), 1};
  REQUIRE(pair.server->send_bytes({&one, 1}).is_ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(pair.client->peer_silence()->since_data.count() == 0);  // waiting, unread
  uint8_t got = 0;
  REQUIRE(pair.client->recv_exact(&got, 1).is_ok());
  CHECK(pair.client->peer_silence()->since_data < std::chrono::milliseconds(50));
}

namespace {

// A descriptor's identity: two descriptors of one open file have the same device and inode.
std::pair<dev_t, ino_t> identity_of(int fd) {
  struct stat st{};
  REQUIRE(::fstat(fd, &st) == 0);
  return {st.st_dev, st.st_ino};
}

int temp_file(const char* name) {
  const int fd = ::memfd_create(name, MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  return fd;
}

}  // namespace

TEST_CASE("unix: descriptors ride with the bytes, in order, through the read-ahead and bulk reads") {
  auto pair = connect_pair(unix_address("descriptors.sock"));
  const int a = temp_file("a");
  const int b = temp_file("b");
  // Small frames ahead of, with and after the descriptors, and a bulk read larger than the read-ahead
  // between them: the receiver reads them all before it asks for any descriptor.
  std::vector<uint8_t> small(100, 7), large(1 << 20, 9);
  iovec s{small.data(), small.size()}, l{large.data(), large.size()};
  REQUIRE(pair.client->send_bytes({&s, 1}).is_ok());
  REQUIRE(pair.client->send_bytes_with_descriptor({&s, 1}, a).is_ok());
  iovec both[] = {s, l};
  REQUIRE(pair.client->send_bytes_with_descriptor(both, b).is_ok());
  REQUIRE(pair.client->send_bytes({&s, 1}).is_ok());
  std::vector<uint8_t> got(100);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(pair.server->recv_exact(got.data(), got.size()).is_ok());
    CHECK(got == small);
  }
  std::vector<uint8_t> bulk(large.size());
  REQUIRE(pair.server->recv_exact(bulk.data(), bulk.size()).is_ok());
  CHECK(bulk == large);
  REQUIRE(pair.server->recv_exact(got.data(), got.size()).is_ok());
  const int first = pair.server->take_descriptor();
  const int second = pair.server->take_descriptor();
  REQUIRE(first >= 0);
  REQUIRE(second >= 0);
  CHECK(identity_of(first) == identity_of(a));
  CHECK(identity_of(second) == identity_of(b));
  CHECK((::fcntl(first, F_GETFD) & FD_CLOEXEC) != 0);
  CHECK(pair.server->take_descriptor() == -1);
  for (int fd : {a, b, first, second}) ::close(fd);
}

TEST_CASE("unix: a peer sending more descriptors than are taken has the later ones closed") {
  auto pair = connect_pair(unix_address("too_many.sock"));
  const int fd = temp_file("many");
  const size_t sent = transport::unix_socket::UnixConnection::kMaxHeldDescriptors + 5;
  uint8_t byte = 1;
  iovec one{&byte, 1};
  for (size_t i = 0; i < sent; ++i) REQUIRE(pair.client->send_bytes_with_descriptor({&one, 1}, fd).is_ok());
  for (size_t i = 0; i < sent; ++i) REQUIRE(pair.server->recv_exact(&byte, 1).is_ok());
  size_t held = 0;
  for (int got; (got = pair.server->take_descriptor()) >= 0; ++held) ::close(got);
  CHECK(held == transport::unix_socket::UnixConnection::kMaxHeldDescriptors);
  ::close(fd);
}

TEST_CASE("unix: a TCP connection carries no descriptors") {
  auto pair = connect_pair("127.0.0.1:0");
  const int fd = temp_file("tcp");
  uint8_t byte = 1;
  iovec one{&byte, 1};
  CHECK(pair.client->send_bytes_with_descriptor({&one, 1}, fd).code() == Code::kNotSupported);
  CHECK(pair.server->take_descriptor() == -1);
  ::close(fd);
}
