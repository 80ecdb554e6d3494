// The cuda backend on a host without the NVIDIA driver: init() fails with a message that names
// the library and says what to do, and every call before a successful init() fails cleanly.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "server/backends/backend.h"
#include "server/backends/cuda/shared_library.h"

using rgpu::server::make_cuda_backend;
using rgpu::server::cuda::SharedLibrary;
using rgpu::server::cuda::split_candidates;

namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

std::string first_line_of(const std::string& text) { return text.substr(0, text.find('\n')); }

bool driver_installed() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!handle) handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return handle != nullptr;
}

}  // namespace

TEST_CASE("without libcuda.so.1, init says which library is missing and what to do", "[cuda_backend]") {
  if (driver_installed()) {
    WARN("libcuda.so.1 is installed here: nothing to check");
    return;
  }
  auto backend = make_cuda_backend();
  CHECK(std::string(backend->name()) == "cuda");
  rgpu::Status status = backend->init();
  REQUIRE_FALSE(status.is_ok());
  CHECK(status.code() == rgpu::Code::kUnavailable);
  // The worker shows the client only the first line, so all of it must be there.
  std::string first_line = first_line_of(status.message());
  CHECK_THAT(first_line, Catch::Contains("libcuda.so.1"));
  CHECK_THAT(first_line, Catch::Contains("cannot open shared object file"));
  CHECK_THAT(first_line, Catch::Contains("install"));
  CHECK_THAT(first_line, Catch::Contains("LD_LIBRARY_PATH"));
  CHECK_THAT(first_line, Catch::Contains("--emulate"));
}

TEST_CASE("the driver library tunable names what init loads", "[cuda_backend]") {
  ScopedEnv env("RGPU_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda-for-rgpu-test.so.1");
  auto backend = make_cuda_backend();
  rgpu::Status status = backend->init();
  REQUIRE_FALSE(status.is_ok());
  CHECK_THAT(status.message(), Catch::Contains("/nonexistent/libcuda-for-rgpu-test.so.1"));
}

TEST_CASE("calls before a successful init fail with an error, not a crash", "[cuda_backend]") {
  ScopedEnv env("RGPU_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda-for-rgpu-test.so.1");
  auto backend = make_cuda_backend();
  REQUIRE_FALSE(backend->init().is_ok());
  CHECK(backend->devices().empty());
  CHECK(backend->arch(0) == 0);
  CHECK(backend->memory_in_use() == 0);
  rgpu::server::LoadedModule module;
  std::vector<uint8_t> image = {'x', 0};
  CHECK(backend->load_module(image, {"k"}, {}, &module) == cudaErrorInitializationError);
  CHECK(backend->unload_module(&module) == cudaErrorInitializationError);
  rgpu::server::LaunchRequest launch;
  int fake_function = 0;
  launch.function = &fake_function;
  CHECK(backend->launch(launch) == cudaErrorInitializationError);
  cudaFuncAttributes attributes;
  CHECK(backend->function_attributes(&fake_function, &attributes) == cudaErrorInitializationError);
  CHECK(backend->set_function_attribute(&fake_function, cudaFuncAttributeMaxDynamicSharedMemorySize, 0) ==
        cudaErrorInitializationError);
  int blocks = 0;
  CHECK(backend->occupancy_max_active_blocks(&fake_function, 128, 0, 0, &blocks) == cudaErrorInitializationError);
}

TEST_CASE("a library that does not load is reported with every candidate and the advice", "[cuda_backend]") {
  auto result = SharedLibrary::open({"/nonexistent/a.so", "/nonexistent/b.so"}, "do this");
  REQUIRE_FALSE(result.is_ok());
  std::string message = first_line_of(result.status().message());
  CHECK_THAT(message, Catch::Contains("/nonexistent/a.so"));
  CHECK_THAT(message, Catch::Contains("/nonexistent/b.so"));
  CHECK_THAT(message, Catch::Contains("do this"));
}

TEST_CASE("an existing library loads and finds its symbols", "[cuda_backend]") {
  auto result = SharedLibrary::open({"/nonexistent/a.so", "libc.so.6"}, "");
  REQUIRE(result.is_ok());
  CHECK(result->path() == "libc.so.6");
  CHECK(result->symbol("malloc") != nullptr);
  CHECK(result->symbol("no_such_symbol_in_libc_for_rgpu") == nullptr);
}

TEST_CASE("library candidate lists split on colons", "[cuda_backend]") {
  CHECK(split_candidates("libcudart.so.13:/usr/local/cuda/lib64/libcudart.so.13") ==
        std::vector<std::string>{"libcudart.so.13", "/usr/local/cuda/lib64/libcudart.so.13"});
  CHECK(split_candidates("one") == std::vector<std::string>{"one"});
  CHECK(split_candidates("::a::b:") == std::vector<std::string>{"a", "b"});
  CHECK(split_candidates("").empty());
}
