// `rgpu pool` and `rgpu ls` (see pool_command.h).
#include "client/cli/pool_command.h"
#include "client/cli/cli_options.h"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <thread>

#include "client/runtime/settings.h"
#include "codegen/support/api_hash.h"
#include "common/wire/frame.h"
#include "transports/handshake.h"
#include "transports/transport.h"

namespace rgpu::cli {

namespace {

using client::kToken;

constexpr double kMaxWatchSeconds = 24 * 3600;

Result<double> parse_seconds(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || !(v >= 0.1) || v > kMaxWatchSeconds)
    return RGPU_ERROR(kInvalidArgument, "--watch " + std::string(text.substr(0, 32)) +
                                            ": write the interval in seconds, 0.1 to 86400 (default 2)");
  return v;
}

bool is_number_like(std::string_view s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.');
}

// The flags every `rgpu pool` request takes: --help / -h (parsing stops: the usage is printed) and
// --json. True when `arg` was one of them.
bool shared_flag(const std::string& arg, PoolCommand& out) {
  if (arg == "--help" || arg == "-h") out.help = true;
  else if (arg == "--json") out.request.json = true;
  else return false;
  return true;
}

Result<PoolCommand> parse_set(PoolCommand out, std::span<const std::string> args, size_t i) {
  if (i >= args.size() || args[i].empty() || args[i][0] == '-')
    return RGPU_ERROR(kInvalidArgument, "rgpu pool set: name the TARGET first (a tenant, or a session id)");
  out.request.args.push_back(args[i++]);
  bool changes = false, memory = false, compute = false, limit = false, when_free = false;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (shared_flag(arg, out)) {
      if (out.help) return out;
      continue;
    }
    if (arg == "--when-free") {
      if (!when_free) out.request.args.push_back("when_free=1");
      when_free = true;
      continue;
    }
    RGPU_ASSIGN_OR_RETURN(OptionValue m, option_value(args, &i, "--memory", "rgpu pool set"));
    if (m.matched) {
      if (memory) return RGPU_ERROR(kInvalidArgument, "rgpu pool set: --memory given twice");
      RGPU_ASSIGN_OR_RETURN(uint64_t bytes, client::parse_memory_request(m.value, "--memory"));
      out.request.args.push_back("memory=" + std::to_string(bytes >> 20) + "MiB");
      memory = changes = true;
      continue;
    }
    RGPU_ASSIGN_OR_RETURN(OptionValue c, option_value(args, &i, "--compute", "rgpu pool set"));
    if (c.matched) {
      if (compute) return RGPU_ERROR(kInvalidArgument, "rgpu pool set: --compute given twice");
      // 0: no reserved share (the pool's set accepts it; a session's RGPU_COMPUTE does not).
      RGPU_ASSIGN_OR_RETURN(uint32_t pct, client::parse_compute_percent(c.value, "--compute", 0));
      out.request.args.push_back("compute=" + std::to_string(pct));
      compute = changes = true;
      continue;
    }
    RGPU_ASSIGN_OR_RETURN(OptionValue l, option_value(args, &i, "--compute-limit", "rgpu pool set"));
    if (l.matched) {
      if (limit) return RGPU_ERROR(kInvalidArgument, "rgpu pool set: --compute-limit given twice");
      RGPU_ASSIGN_OR_RETURN(uint32_t pct, client::parse_compute_percent(l.value, "--compute-limit"));
      out.request.args.push_back("compute_limit=" + std::to_string(pct));
      limit = changes = true;
      continue;
    }
    if (arg == "--watch" || arg.starts_with("--watch="))
      return RGPU_ERROR(kInvalidArgument, "rgpu pool set: --watch is for `rgpu pool` and `rgpu ls`, not for a change");
    return RGPU_ERROR(kInvalidArgument, "rgpu pool set: unknown argument \"" + arg.substr(0, 64) + "\"");
  }
  if (!changes)
    return RGPU_ERROR(kInvalidArgument, "rgpu pool set " + out.request.args[0] +
                                            ": say what to change: --memory, --compute or --compute-limit");
  return out;
}

// `rgpu pool tenant list | add NAME token=... memory=... | remove NAME`: the words go to the server
// as they are (its control API checks them and says what is wrong).
Result<PoolCommand> parse_tenant(PoolCommand out, std::span<const std::string> args, size_t i) {
  for (; i < args.size(); ++i) {
    if (shared_flag(args[i], out)) {
      if (out.help) return out;
      continue;
    }
    if (args[i].starts_with("-"))
      return RGPU_ERROR(kInvalidArgument, "rgpu pool tenant: unknown argument \"" + args[i].substr(0, 64) + "\"");
    out.request.args.push_back(args[i]);
  }
  if (out.request.args.empty())
    return RGPU_ERROR(kInvalidArgument, "rgpu pool tenant: say list, add NAME token=SECRET ..., or remove NAME");
  return out;
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string first_line(const Status& st) { return st.message().substr(0, st.message().find('\n')); }

void print_text(FILE* to, const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), to);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', to);
  std::fflush(to);
}

// What `watch` shows at the top: the request, its interval, the server and the time.
void print_watch_header(const PoolCommand& command, const std::string& server) {
  char when[64] = {};
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &local);
  std::string what = "rgpu " + (command.request.verb == "ls" ? std::string("ls") : "pool");
  if (command.request.json) what += " --json";
  std::printf("\x1b[H\x1b[2J" "Every %gs: %s    rgpud at %s    %s\n\n", command.watch_seconds, what.c_str(),
              server.c_str(), when);
}

}  // namespace

const char* pool_usage() {
  return "  rgpu ls [--json] [--watch [SECONDS]]   the server's GPUs and your sessions on them\n"
         "  rgpu pool [--json] [--watch [SECONDS]] the pool: every GPU, tenant and session (admin token)\n"
         "  rgpu pool set TARGET [--memory SIZE] [--compute PCT] [--compute-limit PCT] [--when-free]\n"
         "                                         change a session's slice (TARGET its id) or a tenant's\n"
         "                                         (TARGET its name); admin token. --when-free lets memory\n"
         "                                         shrink below what is held, applying as it is freed\n"
         "  rgpu pool tenant list | add NAME token=SECRET [memory=SIZE] [compute=PCT] ... | remove NAME\n"
         "                                         the tenants; add or remove one while rgpud runs (admin token)\n"
         "  rgpu pool help [REQUEST]               the requests the server's control API answers\n"
         "    SIZE: 4096 (MiB), 4096M, 4G; PCT: a whole percent of one GPU, 1..100 (--compute 0..100);\n"
         "    --watch asks again every SECONDS (default 2) until interrupted\n";
}

Result<PoolCommand> parse_pool_args(std::string_view command, std::span<const std::string> args) {
  if (command != "pool" && command != "ls")
    return RGPU_ERROR(kInvalidArgument, "unknown control command \"" + std::string(command) + "\"");
  PoolCommand out;
  out.request.verb = std::string(command);
  size_t i = 0;
  if (command == "pool" && !args.empty() && (args[0] == "set" || args[0] == "help" || args[0] == "tenant")) {
    out.request.verb = args[0];
    ++i;
    if (out.request.verb == "set") return parse_set(std::move(out), args, i);
    if (out.request.verb == "tenant") return parse_tenant(std::move(out), args, i);
  }
  const std::string who = out.request.verb == "help" ? "rgpu pool help" : "rgpu " + std::string(command);
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (shared_flag(arg, out)) {
      if (out.help) return out;
      continue;
    }
    if (arg == "--watch" || arg.starts_with("--watch=")) {
      if (out.request.verb == "help")
        return RGPU_ERROR(kInvalidArgument, who + ": --watch is for `rgpu pool` and `rgpu ls`");
      out.watch = true;
      if (arg.starts_with("--watch=")) {
        RGPU_ASSIGN_OR_RETURN(out.watch_seconds, parse_seconds(std::string_view(arg).substr(8)));
      } else if (i + 1 < args.size() && is_number_like(args[i + 1])) {
        RGPU_ASSIGN_OR_RETURN(out.watch_seconds, parse_seconds(args[++i]));
      }
      continue;
    }
    if (out.request.verb == "help" && out.request.args.empty() && !arg.starts_with("-")) {
      out.request.args.push_back(arg);  // help REQUEST
      continue;
    }
    if (command == "pool" && out.request.verb == "pool" && i == 0)
      return RGPU_ERROR(kInvalidArgument, "rgpu pool: unknown request \"" + arg.substr(0, 64) +
                                              "\" (rgpu pool, rgpu pool set, rgpu pool tenant, rgpu pool help)");
    return RGPU_ERROR(kInvalidArgument, who + ": unknown argument \"" + arg.substr(0, 64) + "\"");
  }
  return out;
}

int run_pool_command(const PoolCommand& command) {
  if (command.help) {
    std::fputs(pool_usage(), stdout);
    return 0;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a server gone mid-write is a Status, not a silent death
  const std::string server = client::server_address();
  transport::ClientIdentity id;
  id.protocol_version = wire::kProtocolVersion;
  id.api_hash = gen::kApiHash;
  id.client_version = "0.1.0";
  id.host = hostname();
  id.pid = static_cast<uint32_t>(getpid());
  id.role = transport::Role::kControl;
  id.program = "rgpu " + command.request.verb;
  transport::Welcome welcome;
  auto conn = transport::connect_and_handshake(server, id, kToken.get(), &welcome,
                                               std::chrono::seconds(client::kHandshakeTimeout.get_int()));
  const Status st = conn.status();
  if (!st.is_ok()) {
    if (st.message().find("unknown connection role") != std::string::npos)
      std::fprintf(stderr,
                   "rgpu: rgpud at %s is older than this rgpu: it has no pool control API, which `rgpu %s` needs "
                   "(upgrade rgpud; it said: %s)\n",
                   server.c_str(), command.request.verb == "ls" ? "ls" : "pool", first_line(st).c_str());
    else
      std::fprintf(stderr, "rgpu: cannot reach rgpud at %s: %s\n", server.c_str(), first_line(st).c_str());
    return 1;
  }
  transport::Connection& connection = **conn;
  for (bool first = true;; first = false) {
    Result<transport::PoolReplyMsg> reply = transport::pool_call(connection, command.request);
    if (!reply.is_ok()) {
      if (first)
        std::fprintf(stderr,
                     "rgpu: rgpud at %s accepted the control connection but did not answer the `%s` request: %s "
                     "(an rgpud older than this rgpu has no pool control API: upgrade it)\n",
                     server.c_str(), command.request.verb.c_str(), first_line(reply.status()).c_str());
      else
        std::fprintf(stderr, "rgpu: lost the control connection to rgpud at %s: %s\n", server.c_str(),
                     first_line(reply.status()).c_str());
      return 1;
    }
    if (command.watch) print_watch_header(command, server);
    if (!reply->ok) {
      print_text(stderr, reply->text.empty() ? "rgpu: rgpud refused the request" : reply->text);
      (void)transport::end_control(connection);
      return 1;
    }
    print_text(stdout, reply->text);
    if (!command.watch) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(command.watch_seconds));
  }
  (void)transport::end_control(connection);
  return 0;
}

}  // namespace rgpu::cli
