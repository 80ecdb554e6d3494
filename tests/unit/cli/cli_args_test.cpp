// `rgpu run`, `rgpu pool` and `rgpu ls` arguments: the PoolRequests they build, the environment
// `rgpu run` hands CMD, and the errors a typo gets before anything connects or runs.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "client/cli/pool_command.h"
#include "client/cli/run_command.h"
#include "client/runtime/settings.h"

using namespace rgpu;
using namespace rgpu::cli;
using Catch::Contains;

namespace {

Result<PoolCommand> pool(std::vector<std::string> args) { return parse_pool_args("pool", args); }
Result<PoolCommand> ls(std::vector<std::string> args) { return parse_pool_args("ls", args); }
Result<RunOptions> run(std::vector<std::string> args) { return parse_run_args(args); }

// Sets or clears an environment variable for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("cli: rgpu pool and rgpu ls send their verb, --json and --watch") {
  auto p = pool({});
  REQUIRE(p.is_ok());
  CHECK(p->request.verb == "pool");
  CHECK(p->request.args.empty());
  CHECK_FALSE(p->request.json);
  CHECK_FALSE(p->watch);

  auto l = ls({"--json"});
  REQUIRE(l.is_ok());
  CHECK(l->request.verb == "ls");
  CHECK(l->request.json);

  auto w = ls({"--watch"});
  REQUIRE(w.is_ok());
  CHECK(w->watch);
  CHECK(w->watch_seconds == 2.0);

  auto w5 = pool({"--watch", "5", "--json"});
  REQUIRE(w5.is_ok());
  CHECK(w5->watch);
  CHECK(w5->watch_seconds == 5.0);
  CHECK(w5->request.json);

  auto half = ls({"--watch=0.5"});
  REQUIRE(half.is_ok());
  CHECK(half->watch_seconds == 0.5);

  auto h = pool({"help"});
  REQUIRE(h.is_ok());
  CHECK(h->request.verb == "help");
  CHECK(h->request.args.empty());
  auto hs = pool({"help", "set"});
  REQUIRE(hs.is_ok());
  CHECK(hs->request.args == std::vector<std::string>{"set"});
  CHECK(pool({"help", "set", "ls"}).status().code() == Code::kInvalidArgument);
  CHECK(pool({"--help"})->help);
}

TEST_CASE("cli: bad pool and ls arguments say what is wrong") {
  CHECK_THAT(pool({"sett"}).status().message(), Contains("unknown request \"sett\""));
  CHECK_THAT(ls({"--jsn"}).status().message(), Contains("rgpu ls: unknown argument \"--jsn\""));
  CHECK_THAT(ls({"--watch", "0"}).status().message(), Contains("0.1 to 86400"));
  CHECK_THAT(ls({"--watch=soon"}).status().message(), Contains("interval in seconds"));
  CHECK_THAT(ls({"--watch", "2x"}).status().message(), Contains("interval in seconds"));
  CHECK(ls({"--watch", "nope"}).status().code() == Code::kInvalidArgument);  // not a number, not an option
  CHECK(parse_pool_args("rm", std::vector<std::string>{}).status().code() == Code::kInvalidArgument);
}

TEST_CASE("cli: rgpu pool tenant passes its words to the server as they are") {
  auto add = pool({"tenant", "add", "ns/pod/c", "token=t1", "memory=4G", "--json"});
  REQUIRE(add.is_ok());
  CHECK(add->request.verb == "tenant");
  CHECK(add->request.args == std::vector<std::string>{"add", "ns/pod/c", "token=t1", "memory=4G"});
  CHECK(add->request.json);
  auto empty = pool({"tenant"});
  REQUIRE_FALSE(empty.is_ok());
  CHECK_THAT(empty.status().message(), Catch::Contains("say list, add NAME"));
  auto flag = pool({"tenant", "list", "--watch"});
  REQUIRE_FALSE(flag.is_ok());
  CHECK_THAT(flag.status().message(), Catch::Contains("unknown argument \"--watch\""));
}

TEST_CASE("cli: rgpu pool set builds TARGET then key=value arguments") {
  auto s = pool({"set", "alice", "--memory", "4G", "--compute=25", "--compute-limit", "50%", "--when-free"});
  REQUIRE(s.is_ok());
  CHECK(s->request.verb == "set");
  CHECK(s->request.args == std::vector<std::string>{"alice", "memory=4096MiB", "compute=25", "compute_limit=50",
                                                     "when_free=1"});
  CHECK_FALSE(s->watch);

  auto none = pool({"set", "bob", "--compute", "0"});  // no reserved share
  REQUIRE(none.is_ok());
  CHECK(none->request.args == std::vector<std::string>{"bob", "compute=0"});

  auto m = pool({"set", "17", "--memory=512", "--json"});
  REQUIRE(m.is_ok());
  CHECK(m->request.args == std::vector<std::string>{"17", "memory=512MiB"});
  CHECK(m->request.json);
}

TEST_CASE("cli: rgpu pool set refuses what the pool could not read") {
  CHECK_THAT(pool({"set"}).status().message(), Contains("name the TARGET first"));
  CHECK_THAT(pool({"set", "--memory", "4G"}).status().message(), Contains("name the TARGET first"));
  CHECK_THAT(pool({"set", "alice"}).status().message(), Contains("say what to change"));
  CHECK_THAT(pool({"set", "alice", "--when-free"}).status().message(), Contains("say what to change"));
  CHECK_THAT(pool({"set", "alice", "--memory", "lots"}).status().message(), Contains("--memory"));
  CHECK_THAT(pool({"set", "alice", "--memory"}).status().message(), Contains("--memory needs a value"));
  CHECK_THAT(pool({"set", "alice", "--memory", "0"}).status().message(), Contains("at least 1 MiB"));
  CHECK_THAT(pool({"set", "alice", "--compute-limit", "0"}).status().message(), Contains("1..100"));
  CHECK_THAT(pool({"set", "alice", "--compute", "101"}).status().message(), Contains("0..100"));
  CHECK_THAT(pool({"set", "alice", "--compute-limit", "12.5"}).status().message(), Contains("whole percent"));
  CHECK_THAT(pool({"set", "alice", "--compute", "5", "--compute", "6"}).status().message(), Contains("given twice"));
  CHECK_THAT(pool({"set", "alice", "--compute", "5", "--watch"}).status().message(), Contains("--watch is for"));
  CHECK_THAT(pool({"set", "alice", "--cpu", "5"}).status().message(), Contains("unknown argument \"--cpu\""));
}

TEST_CASE("cli: compute percents and memory requests") {
  CHECK(*client::parse_compute_percent("1", "X") == 1);
  CHECK(*client::parse_compute_percent("100", "X") == 100);
  CHECK(*client::parse_compute_percent("35%", "X") == 35);
  for (const char* bad : {"", "0", "101", "1000", "-5", "5.5", "abc", "%", " 5", "0x10"})
    CHECK(client::parse_compute_percent(bad, "RGPU_COMPUTE").status().code() == Code::kInvalidArgument);
  CHECK_THAT(client::parse_compute_percent("abc", "RGPU_COMPUTE").status().message(),
             Contains("RGPU_COMPUTE=\"abc\" is not a compute share"));
  CHECK(*client::parse_memory_request("4G", "X") == 4ull << 30);
  CHECK(*client::parse_memory_request("4096", "X") == 4ull << 30);
  CHECK_THAT(client::parse_memory_request("4X", "RGPU_MEMORY").status().message(), Contains("RGPU_MEMORY: "));
}

TEST_CASE("cli: the session's requests come from RGPU_MEMORY and RGPU_COMPUTE") {
  {
    ScopedEnv m("RGPU_MEMORY", nullptr), c("RGPU_COMPUTE", nullptr);
    CHECK(*client::memory_request() == 0);
    CHECK(*client::compute_request() == 0);
  }
  {
    ScopedEnv m("RGPU_MEMORY", ""), c("RGPU_COMPUTE", "");
    CHECK(*client::memory_request() == 0);
    CHECK(*client::compute_request() == 0);
  }
  {
    ScopedEnv m("RGPU_MEMORY", "2G"), c("RGPU_COMPUTE", "30");
    CHECK(*client::memory_request() == 2ull << 30);
    CHECK(*client::compute_request() == 30);
  }
  {
    ScopedEnv m("RGPU_MEMORY", "two gigs"), c("RGPU_COMPUTE", "all");
    CHECK_THAT(client::memory_request().status().message(), Contains("RGPU_MEMORY"));
    CHECK_THAT(client::compute_request().status().message(), Contains("RGPU_COMPUTE=\"all\""));
  }
}

TEST_CASE("cli: rgpu run takes its options before CMD and checks them first") {
  ScopedEnv m("RGPU_MEMORY", nullptr), c("RGPU_COMPUTE", nullptr);
  auto plain = run({"--", "python3", "train.py"});
  REQUIRE(plain.is_ok());
  CHECK(plain->preload);
  CHECK_FALSE(plain->memory);
  CHECK_FALSE(plain->compute);
  CHECK(plain->command_index == 1);

  auto all = run({"--memory", "8G", "--compute=40", "--no-preload", "--", "./app", "--memory", "1"});
  REQUIRE(all.is_ok());
  CHECK_FALSE(all->preload);
  CHECK(all->memory == "8192MiB");
  CHECK(all->compute == "40");
  CHECK(all->command_index == 5);  // CMD's own --memory is CMD's

  auto bare = run({"--compute", "10", "nvidia-smi"});
  REQUIRE(bare.is_ok());
  CHECK(bare->command_index == 2);

  CHECK_THAT(run({}).status().message(), Contains("name the command"));
  CHECK_THAT(run({"--memory", "4G", "--"}).status().message(), Contains("name the command"));
  CHECK_THAT(run({"--memory", "huge", "--", "x"}).status().message(), Contains("--memory"));
  CHECK_THAT(run({"--compute", "200", "--", "x"}).status().message(), Contains("1..100"));
  CHECK_THAT(run({"--mem", "4G", "--", "x"}).status().message(), Contains("unknown option \"--mem\""));
  CHECK(run({"--help"})->help);
}

TEST_CASE("cli: rgpu run refuses a bad RGPU_MEMORY or RGPU_COMPUTE that CMD would inherit") {
  {
    ScopedEnv m("RGPU_MEMORY", "4 bananas"), c("RGPU_COMPUTE", nullptr);
    CHECK_THAT(run({"--", "x"}).status().message(), Contains("RGPU_MEMORY"));
    CHECK(run({"--memory", "4G", "--", "x"}).is_ok());  // the option replaces it
  }
  {
    ScopedEnv m("RGPU_MEMORY", nullptr), c("RGPU_COMPUTE", "0");
    CHECK_THAT(run({"--", "x"}).status().message(), Contains("RGPU_COMPUTE=\"0\""));
    CHECK(run({"--compute", "5", "--", "x"}).is_ok());
  }
}

TEST_CASE("cli: the usage names every command and option") {
  const std::string usage = std::string(run_usage()) + pool_usage();
  for (const char* word : {"rgpu run", "--memory SIZE", "--compute PCT", "--no-preload", "rgpu ls", "rgpu pool",
                           "--json", "--watch [SECONDS]", "rgpu pool set TARGET", "--compute-limit PCT",
                           "--when-free"})
    CHECK_THAT(usage, Contains(word));
}

TEST_CASE("cli: the server is RGPU_SERVER when set, else rgpud's Unix socket when it is there") {
  const std::string dir = "/tmp/rgpu_server_address_" + std::to_string(::getpid());
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  const std::string path = dir + "/rgpud.sock";
  ScopedEnv socket_env("RGPU_UNIX_SOCKET", path.c_str());
  {
    ScopedEnv server("RGPU_SERVER", nullptr);
    CHECK(rgpu::client::server_address() == "127.0.0.1:7070");  // no socket there
    REQUIRE(::mknod(path.c_str(), S_IFSOCK | 0600, 0) == 0);  // a socket file, as rgpud's listener leaves one
    CHECK(rgpu::client::server_address() == "unix:" + path);
    ::unlink(path.c_str());
    { std::FILE* f = std::fopen(path.c_str(), "w"); REQUIRE(f); std::fclose(f); }
    CHECK(rgpu::client::server_address() == "127.0.0.1:7070");  // a file that is not a socket
  }
  {
    ScopedEnv server("RGPU_SERVER", "10.0.0.5:7070");
    CHECK(rgpu::client::server_address() == "10.0.0.5:7070");
  }
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
}
