// rgpu: the user's command. `rgpu run -- CMD` runs an unmodified CUDA program against rgpud,
// `rgpu ls` lists the server's devices, `rgpu config` prints every tunable, `rgpu bench` measures
// native and remote side by side.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "client/runtime/settings.h"
#include "common/config.h"
#include "common/wire/frame.h"
#include "codegen/support/api_hash.h"
#include "transports/handshake.h"
#include "transports/transport.h"

namespace {

using rgpu::client::kServerAddress;
using rgpu::client::kToken;

int usage(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage:\n"
               "  rgpu run [--no-preload] -- CMD [ARGS...] run CMD with rgpu's CUDA libraries (RGPU_SERVER picks the server)\n"
               "  rgpu ls                                list the devices rgpud at RGPU_SERVER offers\n"
               "  rgpu config                            print every tunable with its value and default\n"
               "  rgpu bench [SCENARIO] [OPTIONS]        native vs remote benchmark (rgpu bench --help)\n");
  return code;
}

// The folder holding the shim libraries: <prefix>/lib/rgpu beside <prefix>/bin/rgpu.
std::string shim_dir() {
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe");
  return (exe.parent_path().parent_path() / "lib" / "rgpu").string();
}

void prepend_env(const char* name, const std::string& value, char sep) {
  const char* old = std::getenv(name);
  std::string v = old && *old ? value + sep + old : value;
  setenv(name, v.c_str(), 1);
}

// The client libraries, cudart first: the other shims send their calls down cudart's call pipe.
constexpr const char* kShims[] = {"libcudart.so.13", "libcublas.so.13", "libnvidia-ml.so.1", "libcublasLt.so.13",
                                  "libcuda.so.1",    "libcudnn.so.9"};

int run(int argc, char** argv) {
  bool preload = true;
  int i = 0;
  for (; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-preload")) preload = false;
    else if (!std::strcmp(argv[i], "--")) {
      ++i;
      break;
    } else break;
  }
  if (i >= argc) return usage(2);
  std::string dir = shim_dir();
  std::string preload_list;
  for (const char* shim : kShims) {
    if (!std::filesystem::exists(dir + "/" + shim)) {
      std::fprintf(stderr, "rgpu: the client libraries are missing from %s: reinstall rgpu\n", dir.c_str());
      return 127;
    }
    preload_list += (preload_list.empty() ? "" : " ") + dir + "/" + shim;
  }
  // LD_LIBRARY_PATH serves programs that find the libraries by name; LD_PRELOAD also serves
  // programs that pin their library paths (DT_RPATH, absolute dlopen), as PyTorch does. The shims
  // go after whatever LD_PRELOAD already holds, so a sanitizer runtime that must load first still
  // does. execvp keeps the process: CMD's exit status is rgpu run's.
  prepend_env("LD_LIBRARY_PATH", dir, ':');
  if (preload) {
    const char* old = std::getenv("LD_PRELOAD");
    setenv("LD_PRELOAD", (old && *old ? std::string(old) + " " + preload_list : preload_list).c_str(), 1);
  }
  execvp(argv[i], argv + i);
  std::fprintf(stderr, "rgpu: cannot run %s: %s\n", argv[i], std::strerror(errno));
  return 127;
}

// `rgpu bench` is its own program (bench/cli), in <prefix>/libexec/rgpu beside <prefix>/bin/rgpu.
// argv: "bench" and its arguments, null-terminated.
int bench(char** argv) {
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe");
  std::string program = (exe.parent_path().parent_path() / "libexec" / "rgpu" / "rgpu-bench").string();
  argv[0] = program.data();
  execv(program.c_str(), argv);
  std::fprintf(stderr, "rgpu: cannot run %s: %s\n", program.c_str(), std::strerror(errno));
  return 127;
}

int ls() {
  auto conn = rgpu::transport::connect(kServerAddress.get());
  rgpu::Status st = conn.status();
  rgpu::transport::Welcome w;
  if (st.is_ok()) {
    rgpu::transport::ClientIdentity id;
    id.protocol_version = rgpu::wire::kProtocolVersion;
    id.api_hash = rgpu::gen::kApiHash;
    id.client_version = "0.1.0";
    id.host = "rgpu-ls";
    id.pid = static_cast<uint32_t>(getpid());
    st = rgpu::transport::client_handshake(**conn, id, kToken.get(), &w,
                                           std::chrono::seconds(rgpu::client::kHandshakeTimeout.get_int()));
  }
  if (!st.is_ok()) {
    std::fprintf(stderr, "rgpu: cannot reach rgpud at %s: %s\n", kServerAddress.get().c_str(),
                 st.message().substr(0, st.message().find('\n')).c_str());
    return 1;
  }
  std::printf("rgpud at %s (%s backend), %zu device(s):\n", kServerAddress.get().c_str(), w.backend.c_str(), w.devices.size());
  for (const auto& d : w.devices)
    std::printf("  %d  %-32s  sm_%d%d  %.1f GiB\n", d.ordinal, d.name.c_str(), d.major, d.minor,
                static_cast<double>(d.total_memory) / (1u << 30));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage(2);
  std::string cmd = argv[1];
  if (cmd == "run") return run(argc - 2, argv + 2);
  if (cmd == "ls") return ls();
  if (cmd == "bench") return bench(argv + 1);
  if (cmd == "config") {
    std::fputs(rgpu::describe_tunables().c_str(), stdout);
    return 0;
  }
  if (cmd == "--help" || cmd == "-h" || cmd == "help") return usage(0);
  return usage(2);
}
