// The command line of `rgpu bench`:
//   rgpu bench [transport|copy|latency|launch|all] [--format table|csv|json] [--quick] [--stripes N]
//              [--transport tcp|unix|ucx]
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace rgpu::bench {

enum class Format { kTable, kCsv, kJson };
// The family that reaches rgpud: TCP (RGPU_SERVER as host:port), its Unix socket, or UCX after a
// handshake on RGPU_SERVER, whichever family that names (RGPU_TRANSPORT=ucx, transports/ucx/).
enum class Via { kTcp, kUnix, kUcx };

struct Options {
  bool transport = false;  // the raw transport probe (ping-pong and streams)
  bool copy = false;
  bool latency = false;
  bool launch = false;
  Format format = Format::kTable;
  bool quick = false;          // smaller sweeps and fewer repetitions (CI, a first look)
  std::optional<int> stripes;  // connections of the striped copy run and an extra probe row
  std::optional<Via> via;      // --transport; unset: whatever RGPU_SERVER names
};

// Parses the arguments after "bench". A bad argument is kInvalidArgument with what was wrong.
Result<Options> parse_options(const std::vector<std::string>& args);

// The address every run of the benchmark uses: `server` (RGPU_SERVER) unless `via` asks for the
// other family, then `unix_socket` (RGPU_UNIX_SOCKET) for --transport unix; --transport tcp with
// a unix: server is refused, as there is no TCP address to take. --transport ucx takes `server`.
Result<std::string> server_for(std::optional<Via> via, const std::string& server, const std::string& unix_socket);

extern const char* const kUsage;

}  // namespace rgpu::bench
