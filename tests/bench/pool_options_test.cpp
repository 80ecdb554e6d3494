// `rgpu bench pool`'s command line.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "bench/cli/pool_options.h"

using namespace rgpu::bench;

TEST_CASE("pool options: the defaults are a 10/90 pair of 1 ms kernels synced every 8, 3 s") {
  auto o = parse_pool_options({});
  REQUIRE(o.is_ok());
  CHECK(o->shares == std::vector<int>{10, 90});
  CHECK(o->kernel_us == 1000);
  CHECK(o->sync_every == 8);
  CHECK_FALSE(o->sync_each);
  CHECK(o->duration_s == 3);
  CHECK_FALSE(o->cap);
  CHECK_FALSE(o->change);
  CHECK_FALSE(o->suite);
  CHECK_FALSE(o->emulate);
  CHECK_FALSE(o->json);
}

TEST_CASE("pool options: every flag is read") {
  auto o = parse_pool_options({"--shares", "10,20,30,40", "--kernel-us", "10", "--sync-every", "4", "--sync-each", "0",
                               "--duration", "2.5", "--change", "3:60@1.25", "--emulate", "--json"});
  REQUIRE(o.is_ok());
  CHECK(o->shares == std::vector<int>{10, 20, 30, 40});
  CHECK(o->kernel_us == 10);
  CHECK(o->sync_every == 4);
  CHECK(o->sync_each == 0);
  CHECK(o->duration_s == 2.5);
  REQUIRE(o->change);
  CHECK(o->change->tenant == 3);
  CHECK(o->change->compute == 60);
  CHECK(o->change->at_s == 1.25);
  CHECK(o->emulate);
  CHECK(o->json);

  auto cap = parse_pool_options({"--cap", "30"});
  REQUIRE(cap.is_ok());
  CHECK(cap->cap == 30);
  CHECK_FALSE(cap->tenant_from_env);
  auto suite = parse_pool_options({"--suite", "--duration", "5"});
  REQUIRE(suite.is_ok());
  CHECK(suite->suite);
  CHECK(suite->duration_s == 5);
  CHECK_FALSE(suite->torch_dir);
  auto overhead = parse_pool_options({"--overhead", "--torch", "/opt/steps", "--rounds", "30", "--torch-rounds", "40"});
  REQUIRE(overhead.is_ok());
  CHECK(overhead->overhead);
  CHECK(overhead->torch_dir == "/opt/steps");
  CHECK(overhead->rounds == 30);
  CHECK(overhead->torch_rounds == 40);
  CHECK_FALSE(parse_pool_options({"--overhead"})->rounds);
  auto priority = parse_pool_options({"--priority", "--kernel-us", "500"});
  REQUIRE(priority.is_ok());
  CHECK(priority->priority);
  CHECK(priority->kernel_us == 500);
  auto overcommit = parse_pool_options({"--overcommit", "--tenants", "2", "--hold", "40960"});
  REQUIRE(overcommit.is_ok());
  CHECK(overcommit->tenants == 2);
  CHECK(overcommit->hold_mib == 40960);
  auto queue = parse_pool_options({"--queue"});
  REQUIRE(queue.is_ok());
  CHECK(queue->queue);
}

TEST_CASE("pool options: bad values and combinations are refused, saying what is wrong") {
  struct Bad {
    std::vector<std::string> args;
    const char* says;
  };
  for (const Bad& b : std::vector<Bad>{
           {{"--shares", "10,,90"}, "--shares"},
           {{"--shares", "0,100"}, "from 1 to 100"},
           {{"--shares", "10,101"}, "from 1 to 100"},
           {{"--shares", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"}, "at most 16"},
           {{"--kernel-us", "0"}, "--kernel-us"},
           {{"--sync-every", "x"}, "--sync-every"},
           {{"--duration", "0"}, "--duration"},
           {{"--duration", "nan"}, "--duration"},
           {{"--duration"}, "needs a value"},
           {{"--cap", "101"}, "--cap"},
           {{"--change", "0:60"}, "INDEX:PCT@SECONDS"},
           {{"--change", "0@1:60"}, "INDEX:PCT@SECONDS"},
           {{"--change", "0:0@1"}, "PCT"},
           {{"--change", "2:60@1"}, "tenant 2 does not exist"},
           {{"--change", "0:60@3"}, "after the run ends"},
           {{"--sync-each", "2"}, "only 2 tenants"},
           {{"--suite", "--shares", "50,50"}, "--suite"},
           {{"--suite", "--cap", "30"}, "--suite"},
           {{"--cap", "30", "--shares", "50,50"}, "--cap"},
           {{"--cap", "30", "--change", "0:60@1"}, "--cap"},
           {{"--suite", "--overhead"}, "--suite already holds"},
           {{"--suite", "--priority"}, "--suite already holds"},
           {{"--overhead", "--priority"}, "pick one"},
           {{"--priority", "--shares", "50,50"}, "--priority"},
           {{"--overhead", "--cap", "30"}, "--overhead"},
           {{"--overhead", "--shares", "50,50"}, "--overhead"},
           {{"--overcommit", "--priority"}, "pick one"},
           {{"--overcommit", "--shares", "50,50"}, "--overcommit"},
           {{"--hold", "100"}, "add --overcommit"},
           {{"--overcommit", "--hold", "8"}, "from 16"},
           {{"--tenants", "2"}, "add --overcommit"},
           {{"--overcommit", "--tenants", "1"}, "from 2"},
           {{"--queue", "--overcommit"}, "pick one"},
           {{"--queue", "--cap", "30"}, "--queue"},
           {{"--torch"}, "needs a value"},
           {{"--rounds", "20"}, "add --overhead"},
           {{"--overhead", "--torch-rounds", "0"}, "from 1 to 1000"},
           {{"--bogus"}, "unknown argument '--bogus'"},
       }) {
    auto o = parse_pool_options(b.args);
    INFO(b.args[0] << " ... expecting: " << b.says);
    REQUIRE_FALSE(o.is_ok());
    CHECK(o.status().message().find(b.says) != std::string::npos);
  }
}

TEST_CASE("pool options: --tenant-from-env needs --cap and the tenant's RGPU_SERVER and RGPU_TOKEN") {
  unsetenv("RGPU_SERVER");
  unsetenv("RGPU_TOKEN");
  auto no_env = parse_pool_options({"--cap", "10", "--tenant-from-env"});
  REQUIRE_FALSE(no_env.is_ok());
  CHECK_THAT(no_env.status().message(), Catch::Contains("set RGPU_SERVER and RGPU_TOKEN"));
  setenv("RGPU_SERVER", "unix:/run/rgpu/rgpud.sock", 1);
  setenv("RGPU_TOKEN", "pod-token", 1);
  auto no_cap = parse_pool_options({"--tenant-from-env"});
  REQUIRE_FALSE(no_cap.is_ok());
  CHECK_THAT(no_cap.status().message(), Catch::Contains("add --cap PCT"));
  auto ok = parse_pool_options({"--cap", "10", "--tenant-from-env"});
  REQUIRE(ok.is_ok());
  CHECK(ok->tenant_from_env);
  CHECK(ok->cap == 10);
  unsetenv("RGPU_SERVER");
  unsetenv("RGPU_TOKEN");
}
