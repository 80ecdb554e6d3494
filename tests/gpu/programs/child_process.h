// A test program that starts a copy of itself as a second process (fork + exec, so the child is a
// fresh CUDA process: natively its own context, remotely its own rgpud session), with binary
// arguments (IPC handles, a pool pointer's export data) passed as hex on the command line.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

inline std::string to_hex(const void* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    unsigned b = static_cast<const unsigned char*>(p)[i];
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

inline bool from_hex(const char* s, void* p, size_t n) {
  if (std::strlen(s) != 2 * n) return false;
  for (size_t i = 0; i < n; ++i) {
    unsigned b = 0;
    if (std::sscanf(s + 2 * i, "%2x", &b) != 1) return false;
    static_cast<unsigned char*>(p)[i] = static_cast<unsigned char>(b);
  }
  return true;
}

// Runs this program again as `self mode a b` and waits for it: its exit status, or -1 when it did
// not run or did not exit.
inline int run_child(const char* mode, const std::string& a, const std::string& b) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/proc/self/exe", "child", mode, a.c_str(), b.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = -1;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}
