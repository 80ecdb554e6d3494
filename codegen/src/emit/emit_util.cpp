// Shared pieces of the emitters.
#include "emit_util.h"

namespace rgpu::codegen {

std::string cpp_banner(const std::string& purpose) {
  return "// " + purpose + "\n// " + kStamp + "\n";
}

std::string declarator(const std::string& type, const std::string& name) {
  if (auto at = type.find("(*)"); at != std::string::npos) {
    return type.substr(0, at + 2) + name + type.substr(at + 2);
  }
  return type + " " + name;
}

std::string param_list(const Signature& sig, bool named) {
  std::string s;
  for (const auto& p : sig.params) {
    if (!s.empty()) s += ", ";
    s += named ? declarator(p.type.spelling, p.name) : p.type.spelling;
  }
  return s.empty() && !named ? "void" : s;
}

std::string forwarder_params(const Function& f) {
  std::string s = param_list(*f.sig, true);
  if (f.returns == Returns::kValue) s += (s.empty() ? "" : ", ") + f.sig->result.unqualified + "* rgpu_value";
  return s;
}

std::string arg_list(const Signature& sig) {
  std::string s;
  for (const auto& p : sig.params) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

std::string gen_namespace(const Model& m) { return "rgpu::gen::" + m.spec.library; }

std::string id_name(const Function& f) { return "k_" + f.name; }

std::string handle_kind_enum(const std::string& kind) {
  std::string k = kind;
  if (!k.empty()) k[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(k[0])));
  return "::rgpu::server::HandleKind::k" + k;
}

std::string include_lines(const Model& m) {
  std::string s;
  for (const auto& h : m.spec.headers) s += "#include <" + h + ">\n";
  return s;
}

std::string gen_include(const Model& m, const std::string& suffix) {
  return "#include \"gen/" + m.spec.library + "/" + m.spec.library + suffix + "\"\n";
}

std::string marshal_include(const Model& m) {
  return m.spec.marshal_header.empty() ? "" : "#include \"" + m.spec.marshal_header + "\"\n";
}

}  // namespace rgpu::codegen
