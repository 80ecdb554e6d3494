// Parser of `rgpu bench`'s arguments (see options.h).
#include "bench/cli/options.h"

#include <cstdlib>

namespace rgpu::bench {

const char* const kUsage =
    "usage: rgpu bench [transport|copy|latency|launch|all] [--format table|csv|json] [--quick] [--stripes N]\n"
    "                  [--transport tcp|unix|ucx]\n"
    "  transport  the raw connection to rgpud: 64-byte ping-pong, 1 and 4 (and N) connection streams\n"
    "  copy       host<->device and device copy bandwidth, sizes 4 KiB .. 256 MiB, pinned and pageable\n"
    "  latency    4-byte synchronous D2H copy, launch + stream sync, cudaMalloc + cudaFree of 1 MiB\n"
    "  launch     empty-kernel launch throughput\n"
    "  all        everything (the default)\n"
    "  pool       the GPU pool's compute shares, caps and overhead on rgpud's own daemon (rgpu bench pool --help)\n"
    "  --transport  reach rgpud over TCP (RGPU_SERVER) or its Unix socket (RGPU_SERVER if it is unix:PATH,\n"
    "               else RGPU_UNIX_SOCKET), or over UCX after a handshake on RGPU_SERVER (RGPU_TRANSPORT=ucx;\n"
    "               rgpud too): every scenario runs over it\n"
    "Native and remote (through rgpud at RGPU_SERVER) run side by side where this host has a GPU.\n";

Result<Options> parse_options(const std::vector<std::string>& args) {
  Options o;
  std::string scenario;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return RGPU_ERROR(kInvalidArgument, a + " needs a value");
      return args[++i];
    };
    if (a == "--quick") {
      o.quick = true;
    } else if (a == "--format") {
      RGPU_ASSIGN_OR_RETURN(std::string f, value());
      if (f == "table") o.format = Format::kTable;
      else if (f == "csv") o.format = Format::kCsv;
      else if (f == "json") o.format = Format::kJson;
      else return RGPU_ERROR(kInvalidArgument, "unknown format '" + f + "' (table, csv or json)");
    } else if (a == "--stripes") {
      RGPU_ASSIGN_OR_RETURN(std::string n, value());
      char* end = nullptr;
      long v = std::strtol(n.c_str(), &end, 10);
      if (n.empty() || *end || v < 1 || v > 64)
        return RGPU_ERROR(kInvalidArgument, "--stripes takes a number of connections from 1 to 64, not '" + n + "'");
      o.stripes = static_cast<int>(v);
    } else if (a == "--transport") {
      RGPU_ASSIGN_OR_RETURN(std::string t, value());
      if (t == "tcp") o.via = Via::kTcp;
      else if (t == "unix") o.via = Via::kUnix;
      else if (t == "ucx") o.via = Via::kUcx;
      else return RGPU_ERROR(kInvalidArgument, "unknown transport '" + t + "' (tcp, unix or ucx)");
    } else if (a == "transport" || a == "copy" || a == "latency" || a == "launch" || a == "all") {
      if (!scenario.empty()) return RGPU_ERROR(kInvalidArgument, "one scenario at a time ('" + scenario + "' and '" + a + "')");
      scenario = a;
    } else {
      return RGPU_ERROR(kInvalidArgument, "unknown argument '" + a + "'");
    }
  }
  if (scenario.empty() || scenario == "all") {
    o.transport = o.copy = o.latency = o.launch = true;
  } else {
    o.copy = scenario == "copy";
    o.latency = scenario == "latency";
    o.launch = scenario == "launch";
    // The copy and latency bars are set against the transport's floor, so those runs measure it too.
    o.transport = scenario == "transport" || o.copy || o.latency;
  }
  return o;
}

Result<std::string> server_for(std::optional<Via> via, const std::string& server, const std::string& unix_socket) {
  const bool server_is_unix = server.starts_with("unix:");
  if (!via || *via == Via::kUcx || (*via == Via::kUnix) == server_is_unix) return server;
  if (*via == Via::kUnix) return "unix:" + unix_socket;
  return RGPU_ERROR(kInvalidArgument, "--transport tcp: RGPU_SERVER is the Unix socket " + server +
                                          "; set it to rgpud's host:port");
}

}  // namespace rgpu::bench
