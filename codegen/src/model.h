// Model: the spec joined with the header signatures and the exports list into one immutable,
// validated description of every exported function: its class, who writes each side, and how
// each parameter travels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proc_versions.h"
#include "signature.h"
#include "spec.h"

namespace rgpu::codegen {

// How one parameter crosses the wire (see README "Wire encoding").
enum class Marshal {
  kValue,       // scalar, enum or POD record: raw bytes
  kHandle,      // handle by value: u64 client id
  kDeviceAddr,  // a device address by value: u64
  kIn,          // const T*: length-prefixed bytes of `count` elements (absent = null)
  kOut,         // T*: presence byte; reply carries the elements
  kInOut,       // both
  kString,      // const char*: length-prefixed bytes, NUL added by the server
  kInHandles,   // const H*: u32 count (absent marker = null) then u64 ids
  kNewHandle,   // H*: u64 client-made id (0 = null); the server binds it on success
  kScalarIn,    // const T*, `dir: scalar`: mode byte, then the elements (host) or a u64 address (device)
  kScalarOut,   // T*, `dir: scalar`: mode byte; host: the reply carries the elements; device: u64 address
  kScratch,     // T*, `dir: scratch`: host memory the library works in (cuSOLVER's bufferOnHost): presence
                // byte; the server gives the call `count` zeroed elements of its own, nothing comes back
};

// A handle parameter of a type the spec's `answers:` describes: how the call reaches the object.
enum class Described { kNo, kMutable, kReadOnly };

struct ParamPlan {
  std::string name;
  std::string type;       // declaration spelling
  std::string value_type; // spelling without top-level const (kValue locals on the server)
  bool is_enum = false;   // kValue: travels as the enum's underlying integer
  bool is_bool = false;   // kValue: travels as one byte
  Marshal how = Marshal::kValue;
  std::string elem;       // kIn/kOut/kInOut/kScalar*: element C type ("uint8_t" for void)
  std::string count = "1";  // element count expression over the other parameters
  std::string handle_type;  // kHandle/kInHandles/kNewHandle: e.g. cudaStream_t
  std::string handle_kind;  // e.g. stream
  Described described = Described::kNo;  // kHandle/kNewHandle
};

// What a forwarded function returns: the library's status (the rule), or, in an API older than
// that rule (cuBLAS's legacy cublas.h), nothing or a value (float cublasSdot(...)), whose errors
// the library keeps for a getter of its own (cublasGetError).
enum class Returns { kStatus, kVoid, kValue };

struct Function {
  std::string name;
  Where where;                  // the spec entry (or pattern) that classified it; empty for default
  std::string classified_by;    // "entry", "pattern <glob>", "default"
  CallClass cls = CallClass::kUnsupported;
  std::optional<Signature> sig; // absent when no parsed header declares it
  std::optional<std::string> client_file;  // hand-written client side
  std::optional<std::string> server_file;  // hand-written server side
  bool blocking = false;
  bool outputs_on_failure = false;         // outputs (not new handles) travel back whatever the status
  Returns returns = Returns::kStatus;
  std::optional<std::string> destroys;     // handle kind unbound on success
  bool cached = false;                     // answered once per distinct question (answer_cache.h)
  bool forgets_answers = false;            // drops every cached answer of the library when called
  uint32_t id = 0;

  bool generated_stub = false;     // the exported symbol is generated (forwarded or unsupported)
  bool has_server = false;         // a server side exists (generated or hand-written)
  bool generated_server = false;   // dispatcher generated from the plan
  bool remote_forwarder = false;   // rgpu::gen::<lib>::remote::<name> generated
  bool in_api = false;             // in the server's Api table (a server side, or `api: true`)
  std::vector<ParamPlan> params;   // filled when a plan is needed

  bool declared() const { return sig.has_value(); }
  bool variant() const { return sig && !sig->in_plain_pass; }  // only declared in the per-thread pass
  bool marshalled() const { return generated_server || remote_forwarder; }
  bool has(Marshal how) const {
    for (const auto& p : params) {
      if (p.how == how) return true;
    }
    return false;
  }
};

struct Model {
  Spec spec;
  std::vector<std::string> exports;         // sorted
  std::vector<Function> functions;          // one per export, sorted by name
  std::vector<std::pair<std::string, std::string>> handles;  // C type -> kind
  uint64_t api_hash = 0;
  std::vector<ProcVersion> proc_versions;  // spec.proc_address_typedefs read (empty otherwise)
};

uint32_t fnv1a32(const std::string& s);

// Builds the model; on failure returns false and *errors holds one line per problem.
bool build_model(const Spec& spec, const std::vector<std::string>& exports, const SignatureMap& signatures,
                 Model* out, std::vector<std::string>* errors);

// Reads the exports file (one name a line, # comments).
bool read_exports(const std::string& path, std::vector<std::string>* out, std::string* error);

}  // namespace rgpu::codegen
