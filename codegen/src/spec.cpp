// Spec: strict YAML loading with file:line on every entry.
#include "spec.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>
#include <stdexcept>

namespace rgpu::codegen {

const char* class_name(CallClass c) {
  switch (c) {
    case CallClass::kLocal: return "local";
    case CallClass::kAsync: return "async";
    case CallClass::kSync: return "sync";
    case CallClass::kUnsupported: return "unsupported";
  }
  return "?";
}

namespace {

// Thrown inside the loader only; load_spec turns it into its error string.
struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Loader {
 public:
  explicit Loader(std::string path) : path_(std::move(path)) {}

  Where at(const YAML::Node& n) const { return {path_, n.Mark().line + 1}; }

  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    throw SpecError(at(n).str() + ": " + msg);
  }

  // Checks that `n` is a map whose keys are unique and among `allowed`.
  void check_keys(const YAML::Node& n, const std::string& what, const std::set<std::string>& allowed) const {
    if (!n.IsMap()) fail(n, what + " must be a map");
    std::set<std::string> seen;
    for (const auto& kv : n) {
      std::string key = kv.first.as<std::string>();
      if (!seen.insert(key).second) fail(kv.first, "duplicate key '" + key + "' in " + what + "; keep one");
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, "unknown key '" + key + "' in " + what + "; allowed keys: " + list);
      }
    }
  }

  std::string str(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, what + " must be a string");
    return n.as<std::string>();
  }

  bool boolean(const YAML::Node& n, const std::string& what) const {
    bool v = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) fail(n, what + " must be true or false");
    return v;
  }

  CallClass call_class(const YAML::Node& n) const {
    std::string s = str(n, "class");
    if (s == "local") return CallClass::kLocal;
    if (s == "async") return CallClass::kAsync;
    if (s == "sync") return CallClass::kSync;
    if (s == "unsupported") return CallClass::kUnsupported;
    fail(n, "unknown class '" + s + "'; use local, async, sync or unsupported");
  }

  std::vector<std::string> str_list(const YAML::Node& n, const std::string& what) const {
    if (!n.IsSequence()) fail(n, what + " must be a list");
    std::vector<std::string> v;
    for (const auto& e : n) v.push_back(str(e, what + " entry"));
    return v;
  }

  ParamSpec param(const YAML::Node& n, const std::string& what) const {
    check_keys(n, what, {"dir", "count", "string"});
    ParamSpec p;
    p.where = at(n);
    if (n["dir"]) {
      p.dir = str(n["dir"], "dir");
      static const std::set<std::string> dirs = {"in", "out", "inout", "device", "scalar", "scratch"};
      if (!dirs.count(*p.dir))
        fail(n["dir"], "unknown dir '" + *p.dir + "'; use in, out, inout, device, scalar or scratch");
    }
    if (n["count"]) p.count = str(n["count"], "count");
    if (n["string"]) p.string = boolean(n["string"], "string");
    return p;
  }

  EntrySpec entry(const YAML::Node& n, const std::string& name, bool pattern) const {
    std::set<std::string> keys = {"class",  "client", "server", "blocking",           "destroys",
                                  "params", "remote", "api",    "outputs_on_failure", "cached", "forgets_answers"};
    if (pattern) keys = {"match", "class", "client", "server", "header", "destroys", "params", "cached", "forgets_answers"};
    std::string what = pattern ? "pattern '" + name + "'" : "function " + name;
    check_keys(n, what, keys);
    EntrySpec e;
    e.name = name;
    if (!n["class"]) fail(n, what + " needs a class (local, async, sync or unsupported)");
    e.cls = call_class(n["class"]);
    if (n["client"]) e.client = str(n["client"], "client");
    if (n["server"]) e.server = str(n["server"], "server");
    if (n["blocking"]) e.blocking = boolean(n["blocking"], "blocking");
    if (n["remote"]) e.remote = boolean(n["remote"], "remote");
    if (n["api"]) e.api = boolean(n["api"], "api");
    if (n["outputs_on_failure"]) e.outputs_on_failure = boolean(n["outputs_on_failure"], "outputs_on_failure");
    if (n["destroys"]) e.destroys = str(n["destroys"], "destroys");
    if (n["cached"]) e.cached = boolean(n["cached"], "cached");
    if (n["forgets_answers"]) e.forgets_answers = boolean(n["forgets_answers"], "forgets_answers");
    if (n["header"]) e.header = str(n["header"], "header");
    return e;
  }

  // name: {dir: ..., count: ...} entries (a function's params, or the spec's param_defaults).
  std::map<std::string, ParamSpec> params(const YAML::Node& n, const std::string& what) const {
    if (!n.IsMap()) fail(n, what + " must be a map of parameter: {dir: ...}");
    std::map<std::string, ParamSpec> out;
    for (const auto& pkv : n) {
      std::string pname = pkv.first.as<std::string>();
      ParamSpec p = param(pkv.second, what + " parameter " + pname);
      p.where = at(pkv.first);
      if (!out.emplace(pname, p).second) fail(pkv.first, "duplicate parameter '" + pname + "' in " + what + "; keep one");
    }
    return out;
  }

  void load_marshalling(const YAML::Node& root, Spec& s) const {
    if (root["client_dir"]) s.client_dir = str(root["client_dir"], "client_dir");
    if (const YAML::Node& pd = root["pointer_default"]) {
      std::string v = str(pd, "pointer_default");
      if (v != "host" && v != "device") fail(pd, "pointer_default must be host or device");
      s.device_pointers = v == "device";
    }
    if (root["param_defaults"]) s.param_defaults = params(root["param_defaults"], "param_defaults");
    if (root["type_defaults"]) {
      for (auto& [type, p] : params(root["type_defaults"], "type_defaults")) {
        if (!s.type_defaults.emplace(type_key(type), p).second)
          fail(root["type_defaults"], "type_defaults names " + type + " twice (spaces do not count); keep one");
      }
    }
    if (const YAML::Node& sc = root["scalars"]) {
      check_keys(sc, "scalars", {"host_mode", "header"});
      if (!sc["host_mode"] || !sc["header"]) fail(sc, "scalars needs 'host_mode' (a C++ expression) and 'header'");
      s.scalars = ScalarsSpec{str(sc["host_mode"], "scalars.host_mode"), str(sc["header"], "scalars.header")};
    }
    if (const YAML::Node& an = root["answers"]) {
      check_keys(an, "answers", {"described", "read_only", "by_id"});
      AnswersSpec a;
      for (const char* key : {"described", "read_only", "by_id"}) {
        if (!an[key]) continue;
        auto& into = std::string(key) == "described" ? a.described : std::string(key) == "read_only" ? a.read_only : a.by_id;
        for (const auto& type : str_list(an[key], std::string("answers.") + key)) into.insert(type);
      }
      s.answers = a;
    }
    if (root["marshal_header"]) s.marshal_header = str(root["marshal_header"], "marshal_header");
    if (root["proc_address_typedefs"]) s.proc_address_typedefs = str(root["proc_address_typedefs"], "proc_address_typedefs");
  }

  Spec load(const YAML::Node& root) {
    check_keys(root, "the spec", {"library", "soname", "exports", "headers", "per_thread_variants", "symbol_versions", "status",
                                  "handles", "pod_types", "functions", "patterns", "default", "client_dir",
                                  "pointer_default", "param_defaults", "type_defaults", "scalars", "marshal_header",
                                  "proc_address_typedefs", "answers"});
    Spec s;
    s.path = path_;
    for (const char* required : {"library", "soname", "exports", "headers", "status"}) {
      if (!root[required]) fail(root, std::string("the spec needs '") + required + "'");
    }
    s.library = str(root["library"], "library");
    s.soname = str(root["soname"], "soname");
    s.exports_path = (std::filesystem::path(path_).parent_path() / str(root["exports"], "exports")).string();
    s.headers = str_list(root["headers"], "headers");
    if (root["per_thread_variants"]) s.per_thread_variants = boolean(root["per_thread_variants"], "per_thread_variants");
    if (root["symbol_versions"]) s.symbol_versions = boolean(root["symbol_versions"], "symbol_versions");

    const YAML::Node& st = root["status"];
    check_keys(st, "status", {"type", "success", "not_supported", "invalid_handle", "invalid_value", "unavailable", "bad_reply", "finish", "finish_header"});
    for (const char* k : {"type", "success", "not_supported", "invalid_handle", "unavailable", "bad_reply"}) {
      if (!st[k]) fail(st, std::string("status needs '") + k + "'");
    }
    s.status = {str(st["type"], "status.type"), str(st["success"], "status.success"),
                str(st["not_supported"], "status.not_supported"), str(st["invalid_handle"], "status.invalid_handle"),
                "",
                str(st["unavailable"], "status.unavailable"), str(st["bad_reply"], "status.bad_reply"),
                st["finish"] ? str(st["finish"], "status.finish") : "",
                st["finish_header"] ? str(st["finish_header"], "status.finish_header") : ""};
    // Optional so that older specs keep working; without it a bad count reads as a bad reply.
    s.status.invalid_value = st["invalid_value"] ? str(st["invalid_value"], "status.invalid_value") : s.status.bad_reply;
    if (s.status.finish.empty() != s.status.finish_header.empty()) {
      fail(st, "status.finish and status.finish_header go together; give both or neither");
    }

    if (root["handles"]) {
      const YAML::Node& h = root["handles"];
      if (!h.IsMap()) fail(h, "handles must be a map of type: kind");
      std::set<std::string> seen;
      for (const auto& kv : h) {
        std::string type = kv.first.as<std::string>();
        if (!seen.insert(type).second) fail(kv.first, "duplicate handle type '" + type + "'; keep one");
        s.handles.emplace_back(type, str(kv.second, "handle kind"));
      }
    }
    if (root["pod_types"]) s.pod_types = str_list(root["pod_types"], "pod_types");
    load_marshalling(root, s);

    if (root["functions"]) {
      const YAML::Node& fns = root["functions"];
      if (!fns.IsMap()) fail(fns, "functions must be a map of name: {class: ...}");
      std::set<std::string> seen;
      for (const auto& kv : fns) {
        std::string name = kv.first.as<std::string>();
        if (!seen.insert(name).second) {
          fail(kv.first, "duplicate entry for function " + name + "; merge the two entries into one");
        }
        EntrySpec e = entry(kv.second, name, false);
        e.where = at(kv.first);
        if (const YAML::Node& ps = kv.second["params"]) e.params = params(ps, name + " params");
        s.functions.push_back(std::move(e));
      }
    }
    if (root["patterns"]) {
      const YAML::Node& pats = root["patterns"];
      if (!pats.IsSequence()) fail(pats, "patterns must be a list of {match: GLOB, class: ...}");
      for (const auto& p : pats) {
        if (!p.IsMap() || !p["match"]) fail(p, "a pattern needs 'match: GLOB'");
        EntrySpec e = entry(p, str(p["match"], "match"), true);
        e.where = at(p);
        if (const YAML::Node& ps = p["params"]) e.params = params(ps, "pattern '" + e.name + "' params");
        s.patterns.push_back(std::move(e));
      }
    }
    if (root["default"]) s.default_class = call_class(root["default"]);
    return s;
  }

 private:
  std::string path_;
};

}  // namespace

std::string type_key(const std::string& spelling) {
  std::string key;
  for (char c : spelling)
    if (c != ' ') key += c;
  return key;
}

bool load_spec(const std::string& path, Spec* out, std::string* error) {
  if (!std::filesystem::is_regular_file(path)) {
    *error = path + ": cannot read the spec (no such file)";
    return false;
  }
  try {
    YAML::Node root = YAML::LoadFile(path);
    *out = Loader(path).load(root);
    return true;
  } catch (const SpecError& e) {
    *error = e.what();
  } catch (const YAML::Exception& e) {
    *error = path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg;
  }
  return false;
}

}  // namespace rgpu::codegen
