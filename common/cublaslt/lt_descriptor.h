// cuBLASLt descriptors (matmul descriptor, matrix layout, matmul preference) as plain data: their
// attributes with the sizes and defaults cublasLt.h documents, set/get with the library's checks,
// and the byte form in which they travel with a call. The client keeps its descriptors this way
// (no traffic), the session decodes them from peer bytes, and the emulated backend's own
// descriptors are the same objects.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rgpu::cublaslt {

enum class DescKind : uint8_t { kMatmul = 1, kLayout = 2, kPreference = 3 };

// Attribute ids of every kind are below this bound (cublasLt.h, CUDA 13.0).
inline constexpr uint32_t kMaxAttributes = 64;

class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(DescKind kind) : kind_(kind) {}

  DescKind kind() const { return kind_; }

  // cublasLt*SetAttribute: CUBLAS_STATUS_INVALID_VALUE for an attribute this kind does not have,
  // a size other than the attribute's, or a null buffer.
  cublasStatus_t set(uint32_t attr, const void* buf, size_t size);
  // cublasLt*GetAttribute, with the library's sizeWritten protocol: sizeInBytes 0 asks for the
  // size (sizeWritten required); otherwise buf is required and sizeInBytes must be the attribute's.
  cublasStatus_t get(uint32_t attr, void* buf, size_t size, size_t* written) const;

  // The attribute's value (set, or its default), widened to 64 bits (signed attributes sign-extended).
  int64_t value(uint32_t attr) const;
  bool is_set(uint32_t attr) const { return attr < kMaxAttributes && (set_mask_ >> attr) & 1; }

  // Appends the byte form: u8 kind, then u8 attribute, u8 size, the value's bytes for each attribute
  // that was set, in increasing attribute order (equal descriptors give equal bytes).
  void serialize(std::vector<uint8_t>* out) const;
  // Calls f(attr, bytes, size) for each attribute that was set, in increasing order.
  template <typename F>
  void for_each_set(F f) const {
    for (uint32_t a = 0; a < kMaxAttributes; ++a)
      if (is_set(a)) f(a, &values_[a], size_of(kind_, a));
  }

  // Size in bytes of the attribute of this kind, 0 for an attribute it does not have.
  static size_t size_of(DescKind kind, uint32_t attr);

 private:
  DescKind kind_ = DescKind::kMatmul;
  uint64_t set_mask_ = 0;
  uint64_t values_[kMaxAttributes] = {};  // each value's bytes, from the low address up
};

// Decodes one descriptor's byte form (peer input): false, with a message naming the problem, for
// bytes that are not a descriptor of `kind` (wrong kind, unknown attribute, wrong size, a repeated
// or unordered attribute, truncation).
bool parse(std::span<const uint8_t> bytes, DescKind kind, Descriptor* out, std::string* error);

// Bytes of one alpha or beta of a matmul's scale type (CUDA_R_32F: 4, complex types twice their
// real type); 0 for a type cuBLASLt has no scalars of.
size_t scalar_bytes(int32_t scale_type);

}  // namespace rgpu::cublaslt
