// Hand-written helpers that the generated client stubs and server dispatchers share: how pointer
// arguments become bytes on the wire and back, with every decode bounds-checked.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/log.h"
#include "common/wire/codec.h"

#define RGPU_GEN_EXPORT __attribute__((visibility("default")))

namespace rgpu::gen {

// The largest array one pointer argument may carry: the client refuses a larger count with the
// library's invalid-value status, and the server refuses to allocate more for a peer.
inline constexpr size_t kMaxArrayBytes = size_t{1} << 28;

template <typename H>
uint64_t handle_id(H h) {
  if constexpr (std::is_pointer_v<H>) {
    return reinterpret_cast<uintptr_t>(h);
  } else {
    return static_cast<uint64_t>(h);
  }
}

template <typename H>
H handle_from_id(uint64_t id) {
  if constexpr (std::is_pointer_v<H>) {
    return reinterpret_cast<H>(static_cast<uintptr_t>(id));
  } else {
    return static_cast<H>(id);
  }
}

// ---- client side ----

inline void put_device(wire::Encoder& e, const void* p) { e.put<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

inline void put_in_bytes(wire::Encoder& e, const void* p, size_t bytes) { e.put_bytes(p, bytes); }

template <typename H>
void put_handles(wire::Encoder& e, const H* p, size_t n) {
  e.put<uint32_t>(p ? static_cast<uint32_t>(n) : wire::Encoder::kAbsent);
  if (!p) return;
  for (size_t i = 0; i < n; ++i) e.put<uint64_t>(handle_id(p[i]));
}

// Copies one out argument from the reply; a size other than expected marks the reply malformed.
inline void get_out_bytes(wire::Decoder& d, void* p, size_t bytes) {
  if (!p) return;
  auto b = d.get_bytes();
  if (!d.ok()) return;
  if (b.size() != bytes) {
    d.fail();
    return;
  }
  if (bytes) std::memcpy(p, b.data(), bytes);
}

// A `dir: scalar` argument (cuBLAS alpha, beta, result): in host memory its elements travel (mode
// byte 1), in device memory its address does (mode byte 0). A null pointer travels as address 0.
inline void put_scalar_in(wire::Encoder& e, bool host, const void* p, size_t bytes) {
  e.put<uint8_t>(host && p);
  if (host && p) {
    e.put_bytes(p, bytes);
  } else {
    put_device(e, p);
  }
}

inline void put_scalar_out(wire::Encoder& e, bool host, void* p) {
  e.put<uint8_t>(host && p);
  if (!(host && p)) put_device(e, p);
}

// Host-memory scalar results come back in the reply; device ones were written by the GPU.
inline void get_scalar_out(wire::Decoder& d, bool host, void* p, size_t bytes) {
  if (host) get_out_bytes(d, p, bytes);
}

// ---- server side ----

// Storage for an in, out or inout pointer argument, decoded from peer bytes.
template <typename T>
class Buffer {
 public:
  // in/inout: length-prefixed bytes, absent = null; the length must be whole elements.
  bool read_in(wire::Decoder& d) {
    auto b = d.get_bytes(&present_);
    if (!d.ok() || b.size() % sizeof(T) != 0) return false;
    count_ = b.size() / sizeof(T);
    storage_.resize(count_ ? count_ : 1);
    if (!b.empty()) std::memcpy(static_cast<void*>(storage_.data()), b.data(), b.size());
    return true;
  }
  // out: one presence byte (0 or 1).
  bool read_presence(wire::Decoder& d) {
    uint8_t p = d.get<uint8_t>();
    present_ = p == 1;
    return d.ok() && p <= 1;
  }
  // out: room for n elements, bounded so a peer cannot make the server allocate without limit.
  bool allocate(size_t n) {
    if (!present_) return true;
    if (n > kMaxArrayBytes / sizeof(T)) return false;
    count_ = n;
    storage_.assign(n ? n : 1, T{});
    return true;
  }
  // in/inout: the decoded element count must be what the call will read.
  bool has_count(size_t n) const { return !present_ || count_ == n; }
  T* get() { return present_ ? storage_.data() : nullptr; }
  void write(wire::Encoder& out) const {
    if (present_) out.put_bytes(storage_.data(), count_ * sizeof(T));
  }

 private:
  std::vector<T> storage_;
  size_t count_ = 0;
  bool present_ = false;
};

// A `dir: scalar` argument decoded from peer bytes: host elements held here, or a device address
// passed through as it came.
template <typename T>
class Scalar {
 public:
  bool read_in(wire::Decoder& d) {
    if (!read_mode(d)) return false;
    if (!host_) return true;
    auto b = d.get_bytes();
    if (!d.ok() || b.size() % sizeof(T) != 0) return false;
    count_ = b.size() / sizeof(T);
    storage_.resize(count_ ? count_ : 1);
    if (!b.empty()) std::memcpy(static_cast<void*>(storage_.data()), b.data(), b.size());
    return true;
  }
  bool read_out(wire::Decoder& d) { return read_mode(d); }
  // in: a host scalar must hold what the call reads.
  bool has_count(size_t n) const { return !host_ || count_ == n; }
  // out: room for n host elements, bounded like Buffer's.
  bool allocate(size_t n) {
    if (!host_) return true;
    if (n > kMaxArrayBytes / sizeof(T)) return false;
    count_ = n;
    storage_.assign(n ? n : 1, T{});
    return true;
  }
  T* get() { return host_ ? storage_.data() : reinterpret_cast<T*>(static_cast<uintptr_t>(address_)); }
  void write(wire::Encoder& out) const {
    if (host_) out.put_bytes(storage_.data(), count_ * sizeof(T));
  }

 private:
  bool read_mode(wire::Decoder& d) {
    uint8_t mode = d.get<uint8_t>();
    if (!d.ok() || mode > 1) return false;
    host_ = mode == 1;
    if (!host_) address_ = d.get<uint64_t>();
    return d.ok();
  }
  std::vector<T> storage_;
  size_t count_ = 0;
  uint64_t address_ = 0;
  bool host_ = false;
};

class String {
 public:
  bool read(wire::Decoder& d) {
    auto s = d.get_string(&present_);
    if (!d.ok() || s.find('\0') != std::string_view::npos) return false;
    value_.assign(s);
    return true;
  }
  const char* get() const { return present_ ? value_.c_str() : nullptr; }

 private:
  std::string value_;
  bool present_ = false;
};

// A list of handle ids from the peer; resolved through the session's handle table.
class HandleIds {
 public:
  bool read(wire::Decoder& d) {
    uint32_t n = d.get<uint32_t>();
    if (!d.ok()) return false;
    present_ = n != wire::Encoder::kAbsent;
    if (!present_) return true;
    if (n > d.remaining() / sizeof(uint64_t)) return false;
    ids_.resize(n);
    for (auto& id : ids_) id = d.get<uint64_t>();
    return d.ok();
  }
  bool has_count(size_t n) const { return !present_ || ids_.size() == n; }
  template <typename Table, typename Kind, typename H>
  bool resolve(const Table& table, Kind kind, std::vector<H>* out) const {
    out->resize(ids_.empty() ? 1 : ids_.size());
    for (size_t i = 0; i < ids_.size(); ++i) {
      if (!table.resolve(kind, ids_[i], &(*out)[i])) return false;
    }
    return true;
  }
  bool present() const { return present_; }

 private:
  std::vector<uint64_t> ids_;
  bool present_ = false;
};

// The backend lacks this entry point: log once, answer not supported.
inline void report_not_available(std::atomic<bool>& logged, const char* name) {
  if (!logged.exchange(true)) RGPU_LOG_WARN("%s is not available on this backend", name);
}

}  // namespace rgpu::gen
