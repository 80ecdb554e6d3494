// Spawning the worker (see run_worker.h).
#include "bench/cli/run_worker.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace rgpu::bench {
namespace {

// Closes a pipe's ends however the run goes.
struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  void close_end(int i) {
    close(fd[i]);
    fd[i] = -1;
  }
};

// The last few lines of the child's stderr: enough to say why it failed, short enough for a
// one-screen error.
// The end of a failed child's stderr; when that is cut, the first line that names an error goes
// in front (a C++ abort's message comes before a stack trace longer than the end kept).
std::string tail(const std::string& s) {
  constexpr size_t kMax = 2000;
  if (s.size() <= kMax) return s;
  std::string out;
  for (const char* mark : {"what():", "Error", "error:"}) {
    const size_t at = s.find(mark);
    if (at == std::string::npos || at >= s.size() - kMax) continue;
    const size_t begin = s.rfind('\n', at) == std::string::npos ? 0 : s.rfind('\n', at) + 1;
    const size_t end = s.find('\n', at);
    out.append(s, begin, std::min<size_t>(end - begin, 600)).append("\n");
    break;
  }
  return out.append("...").append(s, s.size() - kMax, kMax);
}

}  // namespace

std::vector<std::string> make_environment(const char* const* base, const EnvChanges& changes) {
  std::vector<std::string> env;
  for (const char* const* e = base; e && *e; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    bool changed = false;
    for (const auto& c : changes) changed |= c.first == name;
    if (!changed) env.emplace_back(entry);
  }
  for (const auto& [name, value] : changes)
    if (value) env.push_back(name + "=" + *value);
  return env;
}

std::string prepend_path(const std::string& dir, const char* old) {
  return old && *old ? dir + ":" + old : dir;
}

Result<pid_t> spawn_process(const std::string& exe, const std::vector<std::string>& args, const EnvChanges& env,
                            const ChildIo& io) {
  std::vector<std::string> env_strings = make_environment(environ, env);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings = {exe};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (io.out_fd >= 0) posix_spawn_file_actions_adddup2(&actions, io.out_fd, STDOUT_FILENO);
  if (io.err_fd >= 0) posix_spawn_file_actions_adddup2(&actions, io.err_fd, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (io.own_process_group) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  // A child inherits the spawning thread's CPU mask: this thread takes the child's for the spawn.
  cpu_set_t before, pinned;
  const bool pin = !io.cpus.empty() && sched_getaffinity(0, sizeof before, &before) == 0;
  if (pin) {
    CPU_ZERO(&pinned);
    for (int cpu : io.cpus) CPU_SET(cpu, &pinned);
    (void)sched_setaffinity(0, sizeof pinned, &pinned);
  }
  pid_t pid = 0;
  int rc = posix_spawn(&pid, exe.c_str(), &actions, &attr, argv.data(), envp.data());
  if (pin) (void)sched_setaffinity(0, sizeof before, &before);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return RGPU_ERROR(kIo, "cannot run " + exe + ": " + std::strerror(rc));
  return pid;
}

Result<ProcessOutput> run_process(const std::string& exe, const std::vector<std::string>& args, const EnvChanges& env,
                                  const std::vector<int>& cpus) {
  Pipe out, err;
  if (pipe2(out.fd, O_CLOEXEC) != 0 || pipe2(err.fd, O_CLOEXEC) != 0)
    return RGPU_ERROR(kIo, std::string("pipe: ") + std::strerror(errno));
  RGPU_ASSIGN_OR_RETURN(pid_t pid, spawn_process(exe, args, env, ChildIo{out.fd[1], err.fd[1], false, cpus}));
  out.close_end(1);
  err.close_end(1);

  // Both pipes are drained together: a child blocked on a full stderr pipe would never finish
  // its stdout.
  ProcessOutput result;
  std::string* text[2] = {&result.out, &result.err};
  std::array<pollfd, 2> fds = {pollfd{out.fd[0], POLLIN, 0}, pollfd{err.fd[0], POLLIN, 0}};
  for (int open = 2; open > 0;) {
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return RGPU_ERROR(kIo, std::string("poll: ") + std::strerror(errno));
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || !fds[i].revents) continue;
      char buf[64 << 10];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        text[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // poll ignores negative descriptors; the Pipe closes the real one
        --open;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return RGPU_ERROR(kIo, std::string("waitpid: ") + std::strerror(errno));
  if (WIFSIGNALED(status))
    return RGPU_ERROR(kInternal, exe + " was killed by signal " + std::to_string(WTERMSIG(status)) + ":\n" + tail(result.err));
  if (WEXITSTATUS(status) != 0)
    return RGPU_ERROR(kInternal, exe + " exited with status " + std::to_string(WEXITSTATUS(status)) + ":\n" + tail(result.err));
  return result;
}

Result<WorkerOutput> run_worker(const std::string& exe, const std::vector<std::string>& args, const EnvChanges& env,
                                const std::vector<int>& cpus) {
  RGPU_ASSIGN_OR_RETURN(ProcessOutput out, run_process(exe, args, env, cpus));
  return parse_worker_output(out.out);
}

}  // namespace rgpu::bench
