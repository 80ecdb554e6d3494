// Emitter: <lib>_client.cpp -- the exported stubs (forwarded and unsupported), the remote::
// forwarders, and the reference table that makes a missing hand-written function a link error.
#include <algorithm>

#include "emit_util.h"
#include "emitters.h"

namespace rgpu::codegen {

namespace {

bool is_array(const ParamPlan& p) {
  return p.how == Marshal::kIn || p.how == Marshal::kOut || p.how == Marshal::kInOut || p.how == Marshal::kInHandles ||
         p.how == Marshal::kScalarIn || p.how == Marshal::kScalarOut || p.how == Marshal::kScratch;
}

bool has_scalars(const Function& f) { return f.has(Marshal::kScalarIn) || f.has(Marshal::kScalarOut); }

// Each array's count is checked and its byte size fixed before anything is encoded: a count no
// array can have (a negative length, an overflowing product) fails here without being sent.
std::string array_sizes(const Model& m, const Function& f) {
  std::string s;
  for (const auto& p : f.params) {
    if (!is_array(p)) continue;
    std::string elem = p.how == Marshal::kInHandles ? "uint64_t" : p.elem;
    std::string count = "static_cast<size_t>(" + p.count + ")";
    s += "  if (" + p.name + " && " + count + " > ::rgpu::gen::kMaxArrayBytes / sizeof(" + elem + ")) return " +
         m.spec.status.invalid_value + ";\n";
    if (p.how == Marshal::kScratch) continue;  // only bounded: none of it travels
    if (p.how == Marshal::kInHandles) {
      s += "  const size_t rgpu_count_" + p.name + " = " + p.name + " ? " + count + " : 0;\n";
    } else {
      s += "  const size_t rgpu_bytes_" + p.name + " = " + p.name + " ? " + count + " * sizeof(" + elem + ") : 0;\n";
    }
  }
  return s;
}

// The decoding of f's host outputs from `rgpu_reply` (its reply, past the status).
std::string decode_outputs(const Function& f) {
  std::string s;
  if (f.returns == Returns::kValue) s += "    rgpu_reply.get(rgpu_value);\n";
  for (const auto& p : f.params) {
    if (p.how == Marshal::kOut || p.how == Marshal::kInOut) {
      s += "    ::rgpu::gen::get_out_bytes(rgpu_reply, " + p.name + ", rgpu_bytes_" + p.name + ");\n";
    } else if (p.how == Marshal::kScalarOut) {
      s += "    ::rgpu::gen::get_scalar_out(rgpu_reply, rgpu_host, " + p.name + ", rgpu_bytes_" + p.name + ");\n";
    }
  }
  return s;
}

// A `cached` query: its question (answer_cache.h), and the kept answer when there is one.
std::string cached_lookup(const Model& m, const Function& f) {
  const StatusSpec& st = m.spec.status;
  std::string at;
  for (const auto& p : f.params) {
    if (p.how == Marshal::kHandle && p.described != Described::kNo) at += (at.empty() ? "" : ", ") + ("rgpu_at_" + p.name);
  }
  std::string s = "  std::string& rgpu_question = ::rgpu::gen::AnswerCache::question_buffer();\n";
  s += "  const bool rgpu_cacheable = rgpu_answers().question(" + id_name(f) + ", rgpu_args.payload(), {" + at +
       "}, rgpu_question);\n";
  s += "  if (std::vector<uint8_t>& rgpu_known = ::rgpu::gen::AnswerCache::answer_buffer();\n";
  s += "      rgpu_cacheable && rgpu_answers().find(rgpu_question, rgpu_known)) {\n";
  s += "    ::rgpu::wire::Decoder rgpu_reply(rgpu_known);\n    (void)rgpu_reply.get<int32_t>();\n";
  s += decode_outputs(f);
  s += "    return rgpu_reply.ok() ? " + st.success + " : " + st.bad_reply + ";\n  }\n";
  return s;
}

// After the call: every answer, when it may change them (a handle's mode); the descriptions of the
// described handles it destroyed (forgotten) or took through a mutable type (changed, whatever the
// call's status).
std::string described_after(const Function& f) {
  std::string s = f.forgets_answers ? "  rgpu_answers().forget_answers();\n" : "";
  for (const auto& p : f.params) {
    if (p.how != Marshal::kHandle || p.described == Described::kNo) continue;
    if (f.destroys && p.handle_kind == *f.destroys) {
      s += "  rgpu_answers().forget(::rgpu::gen::handle_id(" + p.name + "));\n";
    } else if (p.described == Described::kMutable && !f.cached) {
      s += "  rgpu_answers().update(::rgpu::gen::handle_id(" + p.name + "), " + id_name(f) + ", rgpu_args.payload());\n";
    }
  }
  return s;
}

// Body of remote::<name>: encode, send, decode the reply.
std::string forwarder(const Model& m, const Function& f, bool sync) {
  const StatusSpec& st = m.spec.status;
  std::string s = st.type + " " + f.name + "(" + forwarder_params(f) + ") {\n";
  s += array_sizes(m, f);
  // Scalars are in host or device memory as the mode says now (cuBLAS: the handle's pointer mode).
  if (has_scalars(f)) s += "  const bool rgpu_host = " + m.spec.scalars->host_mode + ";\n";
  s += "  ::rgpu::client::Call rgpu_call(" + id_name(f) + ", ::rgpu::client::CallClass::" +
       (sync ? "kSync" : "kAsync") + ");\n";
  s += "  [[maybe_unused]] ::rgpu::wire::Encoder& rgpu_args = rgpu_call.args();\n";
  bool has_out = f.returns == Returns::kValue;
  for (const auto& p : f.params) {
    switch (p.how) {
      case Marshal::kValue:
        s += "  rgpu_args.put(" + p.name + ");\n";
        break;
      case Marshal::kHandle:
        if (f.cached && p.described != Described::kNo)  // where the question puts its description
          s += "  const size_t rgpu_at_" + p.name + " = rgpu_args.payload().size();\n";
        s += "  rgpu_args.put<uint64_t>(::rgpu::gen::handle_id(" + p.name + "));\n";
        break;
      case Marshal::kDeviceAddr:
        s += "  ::rgpu::gen::put_device(rgpu_args, " + p.name + ");\n";
        break;
      case Marshal::kIn:
      case Marshal::kInOut:
        s += "  ::rgpu::gen::put_in_bytes(rgpu_args, " + p.name + ", rgpu_bytes_" + p.name + ");\n";
        has_out |= p.how == Marshal::kInOut;
        break;
      case Marshal::kOut:
        s += "  rgpu_args.put<uint8_t>(" + p.name + " != nullptr);\n";
        has_out = true;
        break;
      case Marshal::kScratch:  // the server's own memory serves the call: the caller's is not read or written
        s += "  rgpu_args.put<uint8_t>(" + p.name + " != nullptr);\n";
        break;
      case Marshal::kString:
        s += "  rgpu_args.put_string(" + p.name + ");\n";
        break;
      case Marshal::kInHandles:
        s += "  ::rgpu::gen::put_handles(rgpu_args, " + p.name + ", rgpu_count_" + p.name + ");\n";
        break;
      case Marshal::kNewHandle:
        s += "  const uint64_t rgpu_id_" + p.name + " = " + p.name + " ? ::rgpu::client::new_handle_id() : 0;\n";
        if (p.described != Described::kNo) s += "  const size_t rgpu_at_" + p.name + " = rgpu_args.payload().size();\n";
        s += "  rgpu_args.put<uint64_t>(rgpu_id_" + p.name + ");\n";
        break;
      case Marshal::kScalarIn:
        s += "  ::rgpu::gen::put_scalar_in(rgpu_args, rgpu_host, " + p.name + ", rgpu_bytes_" + p.name + ");\n";
        break;
      case Marshal::kScalarOut:
        s += "  ::rgpu::gen::put_scalar_out(rgpu_args, rgpu_host, " + p.name + ");\n";
        has_out = true;
        break;
    }
  }
  if (f.cached) s += cached_lookup(m, f);
  // A call whose only results are scalars waits only when they go to host memory.
  bool host_outs_only = f.has(Marshal::kScalarOut) && !f.has(Marshal::kOut) && !f.has(Marshal::kInOut);
  if (sync && host_outs_only) {
    s += "  const int32_t rgpu_rc = rgpu_host ? rgpu_call.invoke() : rgpu_call.post();\n";
  } else {
    s += std::string("  const int32_t rgpu_rc = rgpu_call.") + (sync ? "invoke" : "post") + "();\n";
  }
  s += described_after(f);
  s += "  if (rgpu_rc == ::rgpu::client::kStatusUnavailable) return " + st.unavailable + ";\n";
  bool new_handles = std::any_of(f.params.begin(), f.params.end(),
                                 [](const ParamPlan& p) { return p.how == Marshal::kNewHandle; });
  if ((sync && has_out && !f.outputs_on_failure) || new_handles) {
    s += "  if (static_cast<" + st.type + ">(rgpu_rc) != " + st.success + ") return static_cast<" + st.type +
         ">(rgpu_rc);\n";
  }
  if (sync && has_out) {
    // A failure's reply holds the outputs only where the function reports through them (and the
    // server got as far as calling it).
    const std::string replied =
        f.outputs_on_failure ? "rgpu_call.replied() && (static_cast<" + st.type + ">(rgpu_rc) == " + st.success +
                                   " || !rgpu_call.results().at_end())"
                             : "rgpu_call.replied()";
    s += "  if (" + replied + ") {\n    ::rgpu::wire::Decoder& rgpu_reply = rgpu_call.results();\n";
    s += decode_outputs(f);
    s += "    if (!rgpu_reply.ok()) return " + st.bad_reply + ";\n";
    if (f.cached) {
      s += "    if (rgpu_cacheable && static_cast<" + st.type + ">(rgpu_rc) == " + st.success +
           ") rgpu_answers().store(rgpu_question, rgpu_call.reply());\n";
    }
    s += "  }\n";
  }
  for (const auto& p : f.params) {
    if (p.how == Marshal::kNewHandle && p.described != Described::kNo) {
      s += "  rgpu_answers().describe(rgpu_id_" + p.name + ", " + id_name(f) + ", rgpu_args.payload(), rgpu_at_" + p.name +
           ");\n";
    }
  }
  for (const auto& p : f.params) {
    if (p.how == Marshal::kNewHandle) {
      s += "  if (" + p.name + ") *" + p.name + " = ::rgpu::gen::handle_from_id<" + p.handle_type + ">(rgpu_id_" +
           p.name + ");\n";
    }
  }
  s += "  return static_cast<" + st.type + ">(rgpu_rc);\n}\n\n";
  return s;
}

std::string finish(const Model& m, const std::string& expr) {
  return m.spec.status.finish.empty() ? expr : m.spec.status.finish + "(" + expr + ")";
}

}  // namespace

std::string unsupported_stub(const Model& m, const std::string& name, const std::string& result,
                             const std::string& params) {
  std::string s = "extern \"C\" RGPU_GEN_EXPORT " + result + " " + name + "(" + params + ") {\n";
  s += "  ::rgpu::client::report_unsupported(\"" + name + "\");\n";
  if (result == m.spec.status.type) {
    s += "  return " + finish(m, m.spec.status.not_supported) + ";\n";
  } else if (result != "void") {
    s += "  return {};\n";
  }
  return s + "}\n\n";
}

std::string emit_client(const Model& m) {
  std::string s = cpp_banner("Client side of " + m.spec.library + ": exported stubs, remote:: forwarders, manual reference table.");
  s += include_lines(m) + "\n#include \"client/runtime/call.h\"\n";
  if (!m.spec.status.finish_header.empty()) s += "#include \"" + m.spec.status.finish_header + "\"\n";
  if (m.spec.scalars) s += "#include \"" + m.spec.scalars->header + "\"\n";
  s += marshal_include(m);
  s += "#include \"codegen/support/gen_marshal.h\"\n" + gen_include(m, "_decls.h") + gen_include(m, "_ids.h") +
       gen_include(m, "_remote.h");
  if (m.spec.answers) {
    s += "#include \"codegen/support/answer_cache.h\"\n\nnamespace {\n\n// This library's answers and descriptions "
         "(codegen/support/answer_cache.h).\n::rgpu::gen::AnswerCache& rgpu_answers() {\n"
         "  static auto* answers = new ::rgpu::gen::AnswerCache();  // outlives static destructors that still call\n"
         "  return *answers;\n}\n\n}  // namespace\n";
  }
  s += "\n// Some exports are deprecated in the headers; defining and referencing them is the point here.\n";
  s += "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n\n";

  s += "namespace " + gen_namespace(m) + "::remote {\n\n";
  for (const auto& f : m.functions) {
    // A forwarder follows its function's class: async ones post without waiting.
    if ((f.generated_stub && f.cls != CallClass::kUnsupported) || f.remote_forwarder) {
      s += forwarder(m, f, f.cls != CallClass::kAsync);
    }
  }
  s += "}  // namespace " + gen_namespace(m) + "::remote\n\n";

  for (const auto& f : m.functions) {
    if (!f.generated_stub || !f.declared()) continue;
    if (f.cls == CallClass::kUnsupported) {
      s += unsupported_stub(m, f.name, f.sig->result.spelling, param_list(*f.sig, false));
      continue;
    }
    s += "extern \"C\" RGPU_GEN_EXPORT " + f.sig->result.spelling + " " + f.name + "(" + param_list(*f.sig, true) +
         ") {\n";
    const std::string call = gen_namespace(m) + "::remote::" + f.name + "(" + arg_list(*f.sig);
    switch (f.returns) {
      case Returns::kStatus:
        s += "  return " + finish(m, call + ")") + ";\n";
        break;
      case Returns::kVoid:  // the library keeps the error for its own getter (the server's copy of it)
        s += "  (void)" + call + ");\n";
        break;
      case Returns::kValue:
        s += "  " + f.sig->result.unqualified + " rgpu_value{};\n  (void)" + call +
             (f.sig->params.empty() ? "" : ", ") + "&rgpu_value);\n  return rgpu_value;\n";
        break;
    }
    s += "}\n\n";
  }

  s += "// Hand-written exports declared by the headers: referenced so that a missing one fails the link.\n";
  s += "[[gnu::used]] static void* const kManualRefs[] = {\n";
  for (const auto& f : m.functions) {
    if (f.client_file && f.declared()) {
      s += "    reinterpret_cast<void*>(&::" + f.name + "),  // " + m.spec.client_dir + "/" + *f.client_file + "\n";
    }
  }
  s += "    nullptr,\n};\n";
  return s;
}

}  // namespace rgpu::codegen
