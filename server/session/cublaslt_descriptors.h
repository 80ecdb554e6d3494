// The session's real cuBLASLt descriptors, made from the bytes a client sends with each heuristic
// query and matmul (common/cublaslt) and kept by those bytes, so that a program's steady state
// (the same few shapes again and again) creates and destroys no descriptor per call.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/cublaslt/lt_descriptor.h"
#include "common/wire/codec.h"

namespace rgpu::gen::cublasLt {
struct Api;
}

namespace rgpu::server {

class LtDescriptorCache {
 public:
  // Called before a call takes its descriptors: when the cache is full, destroys every real
  // descriptor and starts over (never while a call holds some).
  void trim(const gen::cublasLt::Api& api);

  // Reads one descriptor of `kind` (length-prefixed bytes) from `in` and returns the real one made
  // from it in *real (and its attributes in *attrs when asked). False, with *error, when the bytes
  // are not such a descriptor (peer input); otherwise *status is the library's answer to making it.
  bool take(const gen::cublasLt::Api& api, wire::Decoder& in, cublaslt::DescKind kind, void** real,
            cublasStatus_t* status, std::string* error, cublaslt::Descriptor* attrs = nullptr);

 private:
  static constexpr size_t kMaxEntries = 1024;  // then trim() destroys all; they are made again on use
  cublasStatus_t make(const gen::cublasLt::Api& api, const cublaslt::Descriptor& d, void** real);
  void destroy(const gen::cublasLt::Api& api, cublaslt::DescKind kind, void* real);
};

// The session process's one cache (each session is its own worker process).
LtDescriptorCache& lt_descriptor_cache();

}  // namespace rgpu::server
