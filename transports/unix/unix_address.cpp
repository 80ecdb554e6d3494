// Unix socket address parsing.
#include "transports/unix/unix_address.h"

#include <sys/un.h>

namespace rgpu::transport::unix_socket {

Result<std::string> parse_address(std::string_view address) {
  if (!is_unix_address(address))
    return RGPU_ERROR(kInvalidArgument, std::string(address) + " is not a Unix socket address (unix:PATH)");
  const std::string_view path = address.substr(kScheme.size());
  if (path.empty()) return RGPU_ERROR(kInvalidArgument, "unix: needs the socket file's path (unix:/run/rgpu/rgpud.sock)");
  if (path.size() >= sizeof(sockaddr_un::sun_path))
    return RGPU_ERROR(kInvalidArgument, "the Unix socket path \"" + std::string(path) + "\" is longer than the " +
                                            std::to_string(sizeof(sockaddr_un::sun_path) - 1) + " bytes a socket name holds");
  // A leading NUL would name the abstract namespace, which has no permissions to set.
  if (path.find('\0') != std::string_view::npos)
    return RGPU_ERROR(kInvalidArgument, "a Unix socket path holds no NUL byte");
  return std::string(path);
}

}  // namespace rgpu::transport::unix_socket
