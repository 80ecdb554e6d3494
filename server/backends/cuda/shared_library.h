// A dlopen()ed system library (libcuda, libcudart) and its symbols: the cuda backend links no
// NVIDIA library, so rgpud starts on hosts without a GPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rgpu::server::cuda {

class SharedLibrary {
 public:
  SharedLibrary() = default;

  // Opens the first of `candidates` (sonames or paths) that loads. On failure the status's first
  // line gives every candidate's loader error, then `advice` (what the user should do).
  static Result<SharedLibrary> open(const std::vector<std::string>& candidates, std::string_view advice);

  // The address of `name`, or nullptr when the library does not export it.
  void* symbol(const char* name) const;
  // Which candidate was loaded.
  const std::string& path() const { return path_; }
  bool is_open() const { return handle_ != nullptr; }

 private:
  // Never dlclose()d: the NVIDIA libraries start threads and register exit handlers that must
  // not outlive their code; the worker process exits when its session ends anyway.
  void* handle_ = nullptr;
  std::string path_;
};

// Splits a ':'-separated list of candidates (the form of the library tunables); empty items dropped.
std::vector<std::string> split_candidates(std::string_view list);

}  // namespace rgpu::server::cuda
