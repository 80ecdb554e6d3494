// The gate rgpud's parent forks its session workers through (see fork_gate.h).
#include "server/daemon/fork_gate.h"

#include <unistd.h>

namespace rgpu::server {

pid_t ForkGate::fork() {
  mu_.lock();
  const pid_t pid = ::fork();
  if (pid == 0) return pid;  // the child: the gate is left as it is (fork_gate.h)
  const int saved = errno;
  mu_.unlock();
  errno = saved;
  return pid;
}

ForkGate& parent_fork_gate() {
  static ForkGate* const gate = new ForkGate;
  return *gate;
}

}  // namespace rgpu::server
