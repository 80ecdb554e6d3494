// Emitter: <lib>.map -- the version script of the shim: every export under the real SONAME node,
// or, for a library that versions no symbol (`symbol_versions: false`), under an anonymous node.
#include "emit_util.h"
#include "emitters.h"

namespace rgpu::codegen {

std::string emit_version_script(const Model& m) {
  std::string s = "/* Version script of the " + m.spec.library + " shim. " + kStamp + " */\n";
  s += (m.spec.symbol_versions ? m.spec.soname + " " : std::string()) + "{\n  global:\n";
  for (const auto& name : m.exports) s += "    " + name + ";\n";
  s += "  local:\n    *;\n};\n";
  return s;
}

}  // namespace rgpu::codegen
