// What the reader learns from the headers about one declared function: its name, return type and
// the shape of each parameter, enough for the model to decide how to marshal it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rgpu::codegen {

// The shape of a C type as far as marshalling cares.
enum class Shape {
  kScalar,        // builtin arithmetic or enum
  kRecord,        // struct/union by value
  kVoid,
  kPointer,
  kFunctionPointer,
  kOther,         // arrays as parameters, references, anything unusual
};

struct TypeInfo {
  std::string spelling;      // as written for a declaration, e.g. "const struct cudaDeviceProp *"
  std::string unqualified;   // spelling without top-level const, e.g. "cudaStream_t"
  std::string canonical;     // the type behind its typedefs, e.g. "cublasStatus_t" for cublasStatus
  Shape shape = Shape::kOther;
  bool record_has_pointer = false;  // kRecord: a field (at any depth) is a pointer
  bool is_enum = false;   // kScalar: decoded as its underlying integer (no enum loads of peer bytes)
  bool is_bool = false;   // kScalar: decoded as a byte
};

struct Param {
  std::string name;   // from the header, or p<index> when the header leaves it unnamed
  TypeInfo type;
  // kPointer only: what it points to.
  TypeInfo pointee;
  bool pointee_const = false;
};

struct Signature {
  std::string name;
  TypeInfo result;
  std::vector<Param> params;
  std::string header;  // file that declares it
  bool in_plain_pass = false;  // declared without CUDA_API_PER_THREAD_DEFAULT_STREAM
};

using SignatureMap = std::map<std::string, Signature>;

}  // namespace rgpu::codegen
