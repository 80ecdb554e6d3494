// The compact argument encoding used by generated stubs and dispatchers: fixed-size values are
// copied as bytes (both ends are x86-64 with the same ABI), byte strings carry a u32 length.
// Bulk data is not encoded: the Encoder only records (pointer, length) segments for a gather write.
//
// Decoding is bounds-checked and never throws: a failed read marks the Decoder failed and yields
// zeros; callers check ok() before using anything they decoded.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rgpu::wire {

class Encoder {
 public:
  Encoder() { buf_.reserve(256); }

  void clear() {
    buf_.clear();
    bulk_.clear();
    bulk_bytes_ = 0;
  }

  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put_raw(&v, sizeof(T));
  }
  void put_raw(const void* p, size_t n) {
    size_t at = buf_.size();
    buf_.resize(at + n);
    if (n) std::memcpy(buf_.data() + at, p, n);
  }
  // Overwrites a value written earlier at byte offset `at` (e.g. a status placeholder).
  template <typename T>
  void patch(size_t at, const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (at + sizeof(T) <= buf_.size()) std::memcpy(buf_.data() + at, &v, sizeof(T));
  }
  // Appends n zero bytes and returns where they start (valid until the next put).
  uint8_t* append_zeros(size_t n) {
    size_t at = buf_.size();
    buf_.resize(at + n);
    return buf_.data() + at;
  }
  // Length-prefixed bytes; a null pointer is sent as a distinct "absent" marker.
  void put_bytes(const void* p, size_t n) {
    put<uint32_t>(p ? static_cast<uint32_t>(n) : kAbsent);
    if (p) put_raw(p, n);
  }
  void put_string(const char* s) { put_bytes(s, s ? std::strlen(s) : 0); }
  // Records a bulk segment to be sent after the payload, not copied.
  void add_bulk(const void* p, size_t n) {
    if (n == 0) return;
    bulk_.push_back(iovec{const_cast<void*>(p), n});
    bulk_bytes_ += n;
  }

  std::span<const uint8_t> payload() const { return buf_; }
  std::span<const iovec> bulk() const { return bulk_; }
  uint64_t bulk_bytes() const { return bulk_bytes_; }

  static constexpr uint32_t kAbsent = 0xFFFFFFFFu;

 private:
  std::vector<uint8_t> buf_;
  std::vector<iovec> bulk_;
  uint64_t bulk_bytes_ = 0;
};

class Decoder {
 public:
  Decoder() = default;
  explicit Decoder(std::span<const uint8_t> data) : data_(data) {}

  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v{};
    get_raw(&v, sizeof(T));
    return v;
  }
  template <typename T>
  void get(T* out) {
    *out = get<T>();
  }
  bool get_raw(void* dst, size_t n) {
    if (!ok_ || data_.size() - pos_ < n) {
      ok_ = false;
      return false;
    }
    if (n) std::memcpy(dst, data_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  // Returns a view into the payload; absent (null) is reported through *present.
  std::span<const uint8_t> get_bytes(bool* present = nullptr) {
    uint32_t n = get<uint32_t>();
    if (present) *present = ok_ && n != Encoder::kAbsent;
    if (!ok_ || n == Encoder::kAbsent) return {};
    if (data_.size() - pos_ < n) {
      ok_ = false;
      return {};
    }
    std::span<const uint8_t> s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  // A string view (not NUL-terminated).
  std::string_view get_string(bool* present = nullptr) {
    auto b = get_bytes(present);
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }

  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == data_.size(); }
  size_t remaining() const { return data_.size() - pos_; }
  void fail() { ok_ = false; }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace rgpu::wire
