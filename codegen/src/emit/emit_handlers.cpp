// Emitter: <lib>_handlers.h -- the dispatcher and the hand-written server handlers it calls.
#include <cctype>

#include "emit_util.h"
#include "emitters.h"

namespace rgpu::codegen {

std::string emit_handlers(const Model& m) {
  std::string s = cpp_banner("Server entry of " + m.spec.library + ": dispatch() and the hand-written handlers it calls.");
  s += "#pragma once\n\n#include <cstdint>\n\n";
  s += "namespace rgpu::wire {\nclass Encoder;\nclass Decoder;\n}  // namespace rgpu::wire\n";
  s += "namespace rgpu::server {\nstruct CallContext;\n}  // namespace rgpu::server\n\n";
  s += "namespace " + gen_namespace(m) + " {\n\n";
  s += "// Decodes and runs call `id`. Returns false when the arguments are malformed (nothing was called);\n"
       "// for an unknown id it returns false with status = " + m.spec.status.not_supported + ".\n"
       "// Otherwise `status` is the call's " + m.spec.status.type +
       " and `out` holds the out arguments, in order (sent only on success).\n";
  s += "bool dispatch(server::CallContext& ctx, uint32_t id, wire::Decoder& in, wire::Encoder& out, int32_t& status);\n\n";
  s += "}  // namespace " + gen_namespace(m) + "\n\nnamespace rgpu::server::handlers {\n\n";
  for (const auto& f : m.functions) {
    if (f.server_file) {
      s += "// server/session/" + *f.server_file + "\n";
      s += "bool " + f.name + "(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);\n";
    }
  }
  s += "\n}  // namespace rgpu::server::handlers\n\n";
  std::string upper = m.spec.library;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  s += "// X(name) for every hand-written server handler (tables, test stubs).\n";
  s += "#define RGPU_GEN_" + upper + "_HANDLERS(X)";
  for (const auto& f : m.functions) {
    if (f.server_file) s += " \\\n  X(" + f.name + ")";
  }
  s += "\n";
  return s;
}

}  // namespace rgpu::codegen
