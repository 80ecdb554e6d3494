// Spec: the YAML file of one library, parsed strictly (unknown or duplicate keys are errors) into
// plain structs that remember the file:line of each entry. The model gives it meaning.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rgpu::codegen {

enum class CallClass { kLocal, kAsync, kSync, kUnsupported };
const char* class_name(CallClass c);

struct Where {
  std::string file;
  int line = 0;
  std::string str() const { return file + ":" + std::to_string(line); }
};

struct ParamSpec {
  Where where;
  std::optional<std::string> dir;  // in, out, inout, device, scalar, scratch
  std::optional<std::string> count;
  bool string = false;
};

// One function entry or one pattern; a pattern carries `match`.
struct EntrySpec {
  Where where;
  std::string name;  // exact name, or the glob of a pattern
  CallClass cls = CallClass::kUnsupported;
  std::optional<std::string> client;  // hand-written client file
  std::optional<std::string> server;  // hand-written server file, or "none"
  bool blocking = false;
  bool remote = false;  // hand-written on both sides, but the client wants a generated remote:: forwarder
  bool api = false;     // in the server's Api table although it has no call of its own (`server: none`)
  bool outputs_on_failure = false;  // its outputs travel back whatever its status (cuBLAS's host `info`)
  bool cached = false;  // a query answered once per distinct question on the client (AnswersSpec)
  bool forgets_answers = false;  // a setter that may change any cached answer (a handle's mode)
  std::optional<std::string> destroys;  // handle kind
  std::map<std::string, ParamSpec> params;
  std::optional<std::string> header;  // a pattern's: only functions this header file declares
};

struct StatusSpec {
  std::string type, success, not_supported, invalid_handle, invalid_value, unavailable, bad_reply, finish, finish_header;
};

// `dir: scalar` parameters live in host or device memory as a run-time mode says (cuBLAS's
// pointer mode): `host_mode` is a client-side C++ expression over the parameters, true = host.
struct ScalarsSpec {
  std::string host_mode;
  std::string header;  // declares what host_mode calls (client side)
};

// Handles the client describes, so that a `cached` query naming them is answered once per distinct
// question (codegen/support/answer_cache.h).
struct AnswersSpec {
  std::set<std::string> described;  // types through which calls may change the object
  std::set<std::string> read_only;  // types of the same objects through which calls only read them
  std::set<std::string> by_id;      // handles a question names by id: nothing about them changes an answer
};

struct Spec {
  std::string path;
  std::string library;
  std::string soname;
  std::string exports_path;  // resolved relative to the spec
  std::vector<std::string> headers;
  bool per_thread_variants = false;
  bool symbol_versions = true;  // false: the real library versions no symbol; the shim exports plain names
  StatusSpec status;
  std::vector<std::pair<std::string, std::string>> handles;  // type -> kind, in spec order
  std::vector<std::string> pod_types;  // records whose pointers are device addresses
  std::string client_dir = "client/runtime";  // where `client: FILE` files live
  bool device_pointers = false;  // `pointer_default: device`: undescribed T* are device addresses
  std::map<std::string, ParamSpec> param_defaults;  // by parameter name, for every function
  // By parameter type, spaces removed ("int64_t*"), for every function: where one type always means
  // one thing (cuSPARSE's getters write every `int64_t*` and `void**` to host memory) but the names
  // it goes by also name device addresses elsewhere. A function's params: and param_defaults win.
  std::map<std::string, ParamSpec> type_defaults;
  std::optional<ScalarsSpec> scalars;
  std::optional<AnswersSpec> answers;
  std::string marshal_header;  // hand-written helpers (count expressions) both sides include
  std::string proc_address_typedefs;  // a header of PFN_<name>_v<version> typedefs: emit <lib>_proc_table.cpp
  std::vector<EntrySpec> functions;
  std::vector<EntrySpec> patterns;
  CallClass default_class = CallClass::kUnsupported;
};

// Returns false with *error = "file:line: what is wrong; how to fix it".
// A type's spelling without spaces: the key of Spec::type_defaults.
std::string type_key(const std::string& spelling);

bool load_spec(const std::string& path, Spec* out, std::string* error);

}  // namespace rgpu::codegen
