// The configuration `rgpu bench pool` gives its rgpud, and the helpers around starting it.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "bench/cli/pool_daemon.h"

using namespace rgpu::bench;

TEST_CASE("pool config: tenants t0.. with compute = share, compute_limit 100, 4 GiB, distinct tokens") {
  PoolConfig c = shares_config({10, 20, 70});
  REQUIRE(c.tenants.size() == 3);
  std::set<std::string> tokens = {c.admin_token};
  for (size_t i = 0; i < 3; ++i) {
    CHECK(c.tenants[i].name == std::string("t").append(std::to_string(i)));
    CHECK(c.tenants[i].compute_limit == 100);
    CHECK(c.tenants[i].memory_mib == 4096);
    tokens.insert(c.tenants[i].token);
  }
  CHECK(c.tenants[0].compute == 10);
  CHECK(c.tenants[2].compute == 70);
  CHECK(tokens.size() == 4);

  PoolConfig lone = lone_config(30, 8192);
  REQUIRE(lone.tenants.size() == 1);
  CHECK(lone.tenants[0].compute == 30);
  CHECK(lone.tenants[0].compute_limit == 30);
  CHECK(lone.tenants[0].memory_mib == 8192);

  PoolConfig pr = priority_config(false);
  REQUIRE(pr.tenants.size() == 2);
  CHECK_FALSE(pr.mps);
  CHECK(priority_config(true).mps);
  CHECK(pr.tenants[0].name == "high");
  CHECK(pr.tenants[0].priority == "high");
  CHECK(pr.tenants[1].priority == "low");
  CHECK(pr.tenants[1].compute_limit == 100);
}

TEST_CASE("pool config: the YAML text in pool_config.h's format") {
  PoolConfig c{"admintok", {{"t0", "tok0", 4096, 10, 100, "normal"}, {"t1", "tok1", 4096, 90, 100, "low"}}};
  CHECK(pool_config_yaml(c) ==
        "# written by rgpu bench pool; removed when the run ends\n"
        "admin_token: admintok\n"
        "tenants:\n"
        "  - name: t0\n"
        "    token: tok0\n"
        "    memory: 4096M\n"
        "    compute: 10\n"
        "    compute_limit: 100\n"
        "    priority: normal\n"
        "  - name: t1\n"
        "    token: tok1\n"
        "    memory: 4096M\n"
        "    compute: 90\n"
        "    compute_limit: 100\n"
        "    priority: low\n");
  c.mps = true;
  c.tenants.resize(1);
  CHECK(pool_config_yaml(c) ==
        "# written by rgpu bench pool; removed when the run ends\n"
        "admin_token: admintok\n"
        "policy:\n"
        "  mps: true\n"
        "tenants:\n"
        "  - name: t0\n"
        "    token: tok0\n"
        "    memory: 4096M\n"
        "    compute: 10\n"
        "    compute_limit: 100\n"
        "    priority: normal\n");
}

TEST_CASE("random tokens are 32 hex digits and differ") {
  std::string a = random_token(), b = random_token();
  CHECK(a.size() == 32);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a != b);
}

TEST_CASE("a free port can be found, and a private file written in a private folder") {
  auto port = free_port();
  REQUIRE(port.is_ok());
  CHECK(*port > 0);
  CHECK(*port < 65536);

  auto dir = make_temp_dir();
  REQUIRE(dir.is_ok());
  const std::string file = *dir + "/pool.yaml";
  REQUIRE(write_private_file(file, "admin_token: x\n").is_ok());
  struct stat st{};
  REQUIRE(stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(stat(dir->c_str(), &st) == 0);
  CHECK((st.st_mode & 0077) == 0);
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  CHECK(line == "admin_token: x");
  std::filesystem::remove_all(*dir);
}

TEST_CASE("a daemon that exits at once is an error carrying its log, one that accepts is stopped") {
  auto dir = make_temp_dir();
  REQUIRE(dir.is_ok());
  // /bin/sh stands in for rgpud: it gets "--config FILE --listen 127.0.0.1:PORT" as $0 $1 ...
  const std::string fails = *dir + "/fails.sh";
  REQUIRE(write_private_file(fails, "#!/bin/sh\necho \"rgpud: bad config $2\" >&2\nexit 3\n").is_ok());
  chmod(fails.c_str(), 0700);
  auto d = Daemon::start({fails, std::string("my.yaml"), false, *dir + "/fails.log", std::chrono::milliseconds(5000), {}});
  REQUIRE_FALSE(d.is_ok());
  CHECK(d.status().message().find("exited with status 3") != std::string::npos);
  CHECK(d.status().message().find("rgpud: bad config my.yaml") != std::string::npos);

  // Python listens on the port it is given, as rgpud would.
  if (access("/usr/bin/python3", X_OK) == 0) {
    const std::string listens = *dir + "/listens.sh";
    REQUIRE(write_private_file(listens,
                               "#!/bin/sh\nport=${2##*:}\nexec /usr/bin/python3 -c \"import socket,time\n"
                               "s=socket.socket(); s.bind(('127.0.0.1', $port)); s.listen(); time.sleep(60)\"\n")
                .is_ok());
    chmod(listens.c_str(), 0700);
    auto ok = Daemon::start({listens, std::nullopt, false, *dir + "/listens.log", std::chrono::milliseconds(10000), {}});
    REQUIRE(ok.is_ok());
    CHECK((*ok)->address().rfind("127.0.0.1:", 0) == 0);
    (*ok)->stop();
    (*ok)->stop();  // idempotent
  }

  auto never = Daemon::start({"/bin/sleep", std::nullopt, false, *dir + "/never.log", std::chrono::milliseconds(200), {}});
  // sleep refuses "--listen": it exits; either way the start fails with the daemon gone.
  CHECK_FALSE(never.is_ok());
  std::filesystem::remove_all(*dir);
}
