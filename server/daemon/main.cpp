// rgpud: the GPU host's daemon. Listens (loopback by default), and serves each client in a
// worker process of its own (server/daemon/worker.h).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "common/config.h"
#include "common/log.h"
#include "server/daemon/worker.h"
#include "transports/transport.h"

namespace {

const rgpu::Tunable kListen{"RGPU_LISTEN", "127.0.0.1:7070", "address rgpud listens on (host:port)"};
const rgpu::Tunable kBackend{"RGPU_BACKEND", "cuda", "rgpud backend: cuda (the real GPUs) or emulated (no GPU)"};
const rgpu::Tunable kServerToken{"RGPU_TOKEN", "", "shared secret clients must prove; required off loopback"};

void usage() {
  std::fprintf(stderr,
               "usage: rgpud [--listen HOST:PORT] [--backend cuda|emulated] [--emulate] [--config]\n"
               "  Serves this host's GPUs to rgpu clients. Clients prove RGPU_TOKEN (set it in the environment);\n"
               "  a daemon listening beyond loopback refuses to start without one.\n");
}

// Logs how each worker ended when it did not end by itself (a crash is one tenant's, not ours).
void reap_workers() {
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == ECHILD) {
        usleep(200 * 1000);
        continue;
      }
      if (errno == EINTR) continue;
      return;
    }
    if (WIFSIGNALED(status))
      RGPU_LOG_WARN("session worker %d was killed by signal %d (%s); its GPU resources are freed", pid,
                    WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
}

}  // namespace

int main(int argc, char** argv) {
  rgpu::log_set_prefix("rgpud");
  std::string listen = kListen.get();
  std::string backend = kBackend.get();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--listen" || a == "-l") && i + 1 < argc) listen = argv[++i];
    else if (a == "--backend" && i + 1 < argc) backend = argv[++i];
    else if (a == "--emulate") backend = "emulated";
    else if (a == "--config") {
      std::fputs(rgpu::describe_tunables().c_str(), stdout);
      return 0;
    } else {
      usage();
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  if (backend != "cuda" && backend != "emulated") {
    std::fprintf(stderr, "rgpud: unknown backend '%s' (use cuda or emulated)\n", backend.c_str());
    return 2;
  }
  auto listener = rgpu::transport::listen(listen);
  if (!listener.is_ok()) {
    std::fprintf(stderr, "rgpud: cannot listen on %s: %s\n", listen.c_str(), listener.status().message().c_str());
    return 1;
  }
  std::string token = kServerToken.get();
  if (!(*listener)->is_loopback() && token.empty()) {
    std::fprintf(stderr,
                 "rgpud: refusing to listen on %s without a token: set RGPU_TOKEN to a shared secret (clients set the "
                 "same), or listen on 127.0.0.1\n",
                 (*listener)->address().c_str());
    return 1;
  }
  signal(SIGPIPE, SIG_IGN);
  RGPU_LOG_INFO("listening on %s (%s backend, %s)", (*listener)->address().c_str(), backend.c_str(),
                token.empty() ? "no token" : "token required");
  std::thread(reap_workers).detach();

  rgpu::server::WorkerConfig config{backend, token, static_cast<int>(getpid())};
  uint64_t next_session = 1;
  for (;;) {
    auto conn = (*listener)->accept();
    if (!conn.is_ok()) {
      RGPU_LOG_WARN("accept failed: %s", conn.status().message().c_str());
      continue;
    }
    uint64_t id = next_session++;
    pid_t pid = fork();
    if (pid < 0) {
      RGPU_LOG_ERROR("fork failed: %s; dropping the connection", std::strerror(errno));
      continue;
    }
    if (pid == 0) {
      close((*listener)->native_handle());
      int code = rgpu::server::run_worker(std::move(*conn), id, config);
      std::fflush(nullptr);
      _exit(code);
    }
    // The parent drops its copy of the connection; the worker owns it.
  }
}
