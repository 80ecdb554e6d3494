// Emitter: <lib>_server.cpp -- one decoder-caller per generated function and dispatch().
#include "emit_util.h"
#include "emitters.h"

namespace rgpu::codegen {

namespace {

std::string underlying(const ParamPlan& p) { return "std::underlying_type_t<" + p.value_type + ">"; }

// The expression that passes parameter p to the real function.
std::string call_arg(const ParamPlan& p) {
  if (p.how == Marshal::kValue && p.is_enum) return "static_cast<" + p.value_type + ">(" + p.name + ")";
  if (p.how == Marshal::kValue && p.is_bool) return p.name + " != 0";
  return p.name;
}

std::string dispatcher(const Model& m, const Function& f) {
  const StatusSpec& st = m.spec.status;
  std::string s = "bool d_" + f.name + "(::rgpu::server::CallContext& rgpu_ctx, ::rgpu::wire::Decoder& rgpu_in, "
                  "[[maybe_unused]] ::rgpu::wire::Encoder& rgpu_out, int32_t& rgpu_status) {\n";
  // 1. decode everything, in wire order
  for (const auto& p : f.params) {
    switch (p.how) {
      case Marshal::kValue:
        if (p.is_enum) {
          s += "  const " + underlying(p) + " " + p.name + " = rgpu_in.get<" + underlying(p) + ">();\n";
        } else if (p.is_bool) {
          s += "  const uint8_t " + p.name + " = rgpu_in.get<uint8_t>();\n";
        } else {
          s += "  const " + p.value_type + " " + p.name + " = rgpu_in.get<" + p.value_type + ">();\n";
        }
        break;
      case Marshal::kHandle:
      case Marshal::kNewHandle:
        s += "  const uint64_t rgpu_id_" + p.name + " = rgpu_in.get<uint64_t>();\n";
        break;
      case Marshal::kDeviceAddr:
        s += "  " + p.type + " " + p.name + " = reinterpret_cast<" + p.type +
             ">(static_cast<uintptr_t>(rgpu_in.get<uint64_t>()));\n";
        break;
      case Marshal::kIn:
      case Marshal::kInOut:
        s += "  ::rgpu::gen::Buffer<" + p.elem + "> rgpu_buf_" + p.name + ";\n";
        s += "  if (!rgpu_buf_" + p.name + ".read_in(rgpu_in)) return false;\n";
        break;
      case Marshal::kOut:
      case Marshal::kScratch:
        s += "  ::rgpu::gen::Buffer<" + p.elem + "> rgpu_buf_" + p.name + ";\n";
        s += "  if (!rgpu_buf_" + p.name + ".read_presence(rgpu_in)) return false;\n";
        break;
      case Marshal::kString:
        s += "  ::rgpu::gen::String rgpu_str_" + p.name + ";\n";
        s += "  if (!rgpu_str_" + p.name + ".read(rgpu_in)) return false;\n";
        break;
      case Marshal::kInHandles:
        s += "  ::rgpu::gen::HandleIds rgpu_ids_" + p.name + ";\n";
        s += "  if (!rgpu_ids_" + p.name + ".read(rgpu_in)) return false;\n";
        break;
      case Marshal::kScalarIn:
      case Marshal::kScalarOut:
        s += "  ::rgpu::gen::Scalar<" + p.elem + "> rgpu_sc_" + p.name + ";\n";
        s += "  if (!rgpu_sc_" + p.name + (p.how == Marshal::kScalarIn ? ".read_in" : ".read_out") +
             "(rgpu_in)) return false;\n";
        break;
    }
  }
  s += "  if (!rgpu_in.ok() || !rgpu_in.at_end()) return false;\n";
  for (const auto& p : f.params) {
    if (p.how == Marshal::kNewHandle) {
      s += "  if (::rgpu::server::HandleTable::is_builtin(rgpu_id_" + p.name + ") && rgpu_id_" + p.name +
           " != 0) return false;\n";
    }
  }
  // 2. handles: an unknown id fails the call without calling
  for (const auto& p : f.params) {
    if (p.how == Marshal::kHandle) {
      s += "  " + p.handle_type + " " + p.name + "{};\n";
      s += "  if (!rgpu_ctx.handles.resolve(" + handle_kind_enum(p.handle_kind) + ", rgpu_id_" + p.name + ", &" +
           p.name + ")) {\n    rgpu_status = " + st.invalid_handle + ";\n    return true;\n  }\n";
    } else if (p.how == Marshal::kInHandles) {
      s += "  std::vector<" + p.handle_type + "> rgpu_handles_" + p.name + ";\n";
      s += "  if (!rgpu_ids_" + p.name + ".resolve(rgpu_ctx.handles, " + handle_kind_enum(p.handle_kind) +
           ", &rgpu_handles_" + p.name + ")) {\n    rgpu_status = " + st.invalid_handle +
           ";\n    return true;\n  }\n";
    }
  }
  // 3. the pointers the real function gets
  for (const auto& p : f.params) {
    switch (p.how) {
      case Marshal::kIn:
      case Marshal::kInOut:
        s += "  " + p.elem + "* " + p.name + " = rgpu_buf_" + p.name + ".get();\n";
        break;
      case Marshal::kString:
        s += "  const char* " + p.name + " = rgpu_str_" + p.name + ".get();\n";
        break;
      case Marshal::kInHandles:
        s += "  " + p.handle_type + "* " + p.name + " = rgpu_ids_" + p.name + ".present() ? rgpu_handles_" +
             p.name + ".data() : nullptr;\n";
        break;
      case Marshal::kNewHandle:
        s += "  " + p.handle_type + " rgpu_new_" + p.name + "{};\n";
        s += "  " + p.handle_type + "* " + p.name + " = rgpu_id_" + p.name + " ? &rgpu_new_" + p.name + " : nullptr;\n";
        break;
      default:
        break;
    }
  }
  // 4. sizes: inputs must hold what the call reads; outputs get what it writes
  for (const auto& p : f.params) {
    if (p.how == Marshal::kIn || p.how == Marshal::kInOut) {
      s += "  if (!rgpu_buf_" + p.name + ".has_count(" + p.count + ")) return false;\n";
    } else if (p.how == Marshal::kInHandles) {
      s += "  if (!rgpu_ids_" + p.name + ".has_count(" + p.count + ")) return false;\n";
    }
  }
  // 5. a function the server's library lacks fails before its outputs are allocated (a count the
  // peer chose can ask for up to kMaxArrayBytes, zeroed, for nothing)
  s += "  if (!rgpu_ctx." + m.spec.library + "." + f.name + ") {\n";
  s += "    static std::atomic<bool> rgpu_logged{false};\n";
  s += "    ::rgpu::gen::report_not_available(rgpu_logged, \"" + f.name + "\");\n";
  s += "    rgpu_status = " + st.not_supported + ";\n    return true;\n  }\n";
  for (const auto& p : f.params) {
    if (p.how == Marshal::kOut || p.how == Marshal::kScratch) {
      s += "  if (!rgpu_buf_" + p.name + ".allocate(" + p.count + ")) return false;\n";
      s += "  " + p.elem + "* " + p.name + " = rgpu_buf_" + p.name + ".get();\n";
    } else if (p.how == Marshal::kScalarIn || p.how == Marshal::kScalarOut) {
      s += "  if (!rgpu_sc_" + p.name + (p.how == Marshal::kScalarIn ? ".has_count(" : ".allocate(") + p.count +
           ")) return false;\n";
      s += "  " + p.type + " " + p.name + " = rgpu_sc_" + p.name + ".get();\n";
    }
  }
  // 6. call
  std::string args;
  for (const auto& p : f.params) args += (args.empty() ? "" : ", ") + call_arg(p);
  const std::string call = "rgpu_ctx." + m.spec.library + "." + f.name + "(" + args + ")";
  switch (f.returns) {
    case Returns::kStatus:
      s += "  const " + st.type + " rgpu_rc = " + call + ";\n";
      break;
    case Returns::kVoid:  // its errors stay with the library, for the library's own getter
      s += "  " + call + ";\n  const " + st.type + " rgpu_rc = " + st.success + ";\n";
      break;
    case Returns::kValue:
      s += "  const " + f.sig->result.unqualified + " rgpu_value = " + call + ";\n  const " + st.type +
           " rgpu_rc = " + st.success + ";\n";
      break;
  }
  s += "  rgpu_status = static_cast<int32_t>(rgpu_rc);\n";
  // 7. on success only: handle bookkeeping and outputs (outputs whatever the status, where the
  // function reports through them why it failed)
  std::string outputs = f.returns == Returns::kValue ? "  rgpu_out.put(rgpu_value);\n" : "";
  for (const auto& p : f.params) {
    if (p.how == Marshal::kOut || p.how == Marshal::kInOut) outputs += "  rgpu_buf_" + p.name + ".write(rgpu_out);\n";
    if (p.how == Marshal::kScalarOut) outputs += "  rgpu_sc_" + p.name + ".write(rgpu_out);\n";
  }
  if (f.outputs_on_failure) s += outputs;
  std::string after;
  for (const auto& p : f.params) {
    if (p.how == Marshal::kNewHandle) {
      after += "  if (rgpu_id_" + p.name + ") rgpu_ctx.handles.bind_handle(" + handle_kind_enum(p.handle_kind) + ", rgpu_id_" +
           p.name + ", rgpu_new_" + p.name + ");\n";
    }
  }
  if (f.destroys) {
    for (const auto& p : f.params) {
      if (p.how == Marshal::kHandle && p.handle_kind == *f.destroys) {
        after += "  rgpu_ctx.handles.unbind(" + handle_kind_enum(p.handle_kind) + ", rgpu_id_" + p.name + ");\n";
        break;
      }
    }
  }
  if (!f.outputs_on_failure) after += outputs;
  if (!after.empty()) s += "  if (rgpu_rc != " + st.success + ") return true;\n" + after;
  s += "  return true;\n}\n\n";
  return s;
}

}  // namespace

std::string emit_server(const Model& m) {
  std::string s = cpp_banner("Server dispatch of " + m.spec.library + ": decode, translate handles, call the backend, encode outputs.");
  s += include_lines(m) +
       "\n#include <atomic>\n#include <type_traits>\n#include <vector>\n\n" + marshal_include(m) +
       "#include \"codegen/support/gen_marshal.h\"\n"
       "#include \"server/session/call_context.h\"\n"
       "#include \"server/session/handle_table.h\"\n" +
       gen_include(m, "_api.h") + gen_include(m, "_handlers.h") + gen_include(m, "_ids.h");
  s += "\nnamespace " + gen_namespace(m) + " {\nnamespace {\n\n";
  for (const auto& f : m.functions) {
    if (f.generated_server) s += dispatcher(m, f);
  }
  s += "}  // namespace\n\n";
  s += "bool dispatch(server::CallContext& ctx, uint32_t id, wire::Decoder& in, wire::Encoder& out, int32_t& status) {\n";
  s += "  switch (id) {\n";
  for (const auto& f : m.functions) {
    if (f.generated_server) {
      s += "    case " + id_name(f) + ": return d_" + f.name + "(ctx, in, out, status);\n";
    } else if (f.server_file) {
      s += "    case " + id_name(f) + ": return ::rgpu::server::handlers::" + f.name + "(ctx, in, out, status);\n";
    }
  }
  s += "    default:\n      status = " + m.spec.status.not_supported + ";\n      return false;\n  }\n}\n\n";
  s += "}  // namespace " + gen_namespace(m) + "\n";
  return s;
}

}  // namespace rgpu::codegen
