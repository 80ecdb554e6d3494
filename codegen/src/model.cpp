// Model: classification, marshalling plans and validation of one library.
#include "model.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace rgpu::codegen {

uint32_t fnv1a32(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

namespace {

uint64_t fnv1a64(uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

const char* marshal_name(Marshal m) {
  switch (m) {
    case Marshal::kValue: return "value";
    case Marshal::kHandle: return "handle";
    case Marshal::kDeviceAddr: return "device";
    case Marshal::kIn: return "in";
    case Marshal::kOut: return "out";
    case Marshal::kInOut: return "inout";
    case Marshal::kString: return "string";
    case Marshal::kInHandles: return "in-handles";
    case Marshal::kNewHandle: return "new-handle";
    case Marshal::kScalarIn: return "scalar-in";
    case Marshal::kScalarOut: return "scalar-out";
    case Marshal::kScratch: return "scratch";
  }
  return "?";
}

class Builder {
 public:
  Builder(const Spec& spec, std::vector<std::string>* errors) : spec_(spec), errors_(errors) {
    for (const auto& [type, kind] : spec.handles) handle_kind_[type] = kind;
    pods_.insert(spec.pod_types.begin(), spec.pod_types.end());
  }

  void error(const Where& w, const std::string& msg) {
    errors_->push_back((w.file.empty() ? spec_.path : w.str()) + ": " + msg);
  }

  // Fills f.params; returns false (after reporting why) when a parameter cannot be marshalled.
  // An exact entry's params must all be the function's; a pattern's describe those of its
  // functions that have them (build_model checks that each names a parameter of one of them).
  bool plan(Function& f, const EntrySpec* entry, bool exact) {
    const std::string fix = "mark " + f.name + " `client: FILE` (with `server: FILE` or `server: none`), or describe the parameter under `params:`";
    bool ok = true;
    std::set<std::string> names;
    for (const Param& p : f.sig->params) names.insert(p.name);
    if (entry && exact) {
      for (const auto& [pname, ps] : entry->params) {
        if (!names.count(pname)) {
          std::string list;
          for (const auto& n : f.sig->params) list += (list.empty() ? "" : ", ") + n.name;
          error(ps.where, f.name + " has no parameter '" + pname + "'; its parameters are: " + list);
          ok = false;
        }
      }
    }
    for (const Param& p : f.sig->params) {
      const ParamSpec* ps = nullptr;
      if (entry) {
        auto it = entry->params.find(p.name);
        if (it != entry->params.end()) ps = &it->second;
      }
      if (!ps) {
        auto it = spec_.param_defaults.find(p.name);
        if (it != spec_.param_defaults.end()) ps = &it->second;
      }
      if (!ps) {
        auto it = spec_.type_defaults.find(type_key(p.type.spelling));
        if (it != spec_.type_defaults.end()) ps = &it->second;
      }
      std::string why;
      ParamPlan plan;
      if (!plan_param(p, ps, &plan, &why)) {
        error(ps ? ps->where : f.where, "cannot marshal parameter '" + p.name + "' (" + p.type.spelling + ") of " +
                                            f.name + ": " + why + "; " + fix);
        ok = false;
        continue;
      }
      f.params.push_back(std::move(plan));
    }
    return ok;
  }

  bool plan_param(const Param& p, const ParamSpec* ps, ParamPlan* out, std::string* why) {
    out->name = p.name;
    out->type = p.type.spelling;
    out->value_type = p.type.unqualified;
    out->is_enum = p.type.is_enum;
    out->is_bool = p.type.is_bool;
    std::optional<std::string> dir = ps ? ps->dir : std::nullopt;
    if (ps && ps->count) out->count = *ps->count;

    if (auto h = handle_kind_.find(p.type.unqualified); h != handle_kind_.end()) {
      out->how = Marshal::kHandle;
      out->handle_type = h->first;
      out->handle_kind = h->second;
      return true;
    }
    switch (p.type.shape) {
      case Shape::kScalar:
        out->how = Marshal::kValue;
        return true;
      case Shape::kRecord:
        if (p.type.record_has_pointer && !pods_.count(bare(p.type.unqualified))) {
          *why = "the struct holds pointers (list it under pod_types if they are device addresses)";
          return false;
        }
        out->how = Marshal::kValue;
        return true;
      case Shape::kFunctionPointer:
        *why = "a function pointer cannot cross the network";
        return false;
      case Shape::kPointer:
        return plan_pointer(p, ps, dir, out, why);
      default:
        *why = "unsupported parameter type";
        return false;
    }
  }

  bool plan_pointer(const Param& p, const ParamSpec* ps, const std::optional<std::string>& dir, ParamPlan* out,
                    std::string* why) {
    const TypeInfo& pt = p.pointee;
    if (dir == "device") {
      out->how = Marshal::kDeviceAddr;
      return true;
    }
    if (auto h = handle_kind_.find(pt.unqualified); h != handle_kind_.end()) {
      out->handle_type = h->first;
      out->handle_kind = h->second;
      if ((p.pointee_const && !dir) || dir == "in") {
        out->how = Marshal::kInHandles;
        return true;
      }
      if (!p.pointee_const && (!dir || dir == "out") && out->count == "1") {
        out->how = Marshal::kNewHandle;
        return true;
      }
      *why = "only `const " + h->first + "*` or `dir: in` (ids in) and a single `" + h->first +
             "*` (a new handle) are marshalled; the server cannot hand out handles it created";
      return false;
    }
    if (ps && ps->string) {
      if (pt.unqualified != "char" || !p.pointee_const) {
        *why = "`string: true` needs a const char*";
        return false;
      }
      out->how = Marshal::kString;
      return true;
    }
    if (!dir) {
      if (pt.shape == Shape::kVoid) {
        out->how = Marshal::kDeviceAddr;
        return true;
      }
      if (pt.unqualified == "char" && p.pointee_const) {
        out->how = Marshal::kString;
        return true;
      }
      // A pointer to pointers is a host array of device addresses: it keeps needing `dir:`.
      if (spec_.device_pointers && pt.shape != Shape::kPointer) {
        out->how = Marshal::kDeviceAddr;
        return true;
      }
    }
    switch (pt.shape) {
      case Shape::kVoid:
        out->elem = "uint8_t";
        break;
      case Shape::kScalar:
        out->elem = pt.unqualified;
        break;
      case Shape::kRecord:
        if (pt.record_has_pointer && !pods_.count(bare(pt.unqualified))) {
          *why = "the struct it points to holds pointers (list it under pod_types if they are device addresses)";
          return false;
        }
        out->elem = pt.unqualified;
        break;
      case Shape::kPointer:
        if (!dir) {
          *why = "a pointer to a pointer needs an explicit `dir:` (the inner pointers then travel as device addresses)";
          return false;
        }
        out->elem = pt.unqualified;
        break;
      default:
        *why = "it points to something that cannot be copied";
        return false;
    }
    if (dir == "scratch") {
      if (!ps->count) {
        *why = "`dir: scratch` needs a `count` (the elements the server allocates for the call)";
        return false;
      }
      if (p.pointee_const || pt.shape == Shape::kPointer) {
        *why = "scratch memory is a writable buffer of values";
        return false;
      }
      out->how = Marshal::kScratch;
      return true;
    }
    if (dir == "scalar") {
      if (!spec_.scalars) {
        *why = "`dir: scalar` needs the spec's `scalars:` (the expression that says host or device memory)";
        return false;
      }
      if (pt.shape == Shape::kPointer) {
        *why = "a scalar cannot be a pointer";
        return false;
      }
      out->how = p.pointee_const ? Marshal::kScalarIn : Marshal::kScalarOut;
      return true;
    }
    std::string d = dir ? *dir : (p.pointee_const ? "in" : "out");
    if (p.pointee_const && d != "in") {
      *why = "a pointer to const can only be `dir: in`";
      return false;
    }
    out->how = d == "in" ? Marshal::kIn : d == "out" ? Marshal::kOut : Marshal::kInOut;
    return true;
  }

  // "struct cudaPitchedPtr" -> "cudaPitchedPtr"
  static std::string bare(std::string s) {
    for (const char* prefix : {"struct ", "union ", "enum "}) {
      if (s.rfind(prefix, 0) == 0) s = s.substr(std::string(prefix).size());
    }
    return s;
  }

  bool known_kind(const std::string& kind) const {
    for (const auto& [type, k] : spec_.handles) {
      if (k == kind) return true;
    }
    return false;
  }

  const Spec& spec_;
  std::vector<std::string>* errors_;
  std::map<std::string, std::string> handle_kind_;
  std::set<std::string> pods_;
};

}  // namespace

bool read_exports(const std::string& path, std::vector<std::string>* out, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot read the exports list";
    return false;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    out->push_back(line);
  }
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
  return true;
}

namespace {

// What f returns (Function::returns); false, with why, for a result that cannot travel.
bool classify_result(Function& f, const Spec& spec, std::string* why) {
  const TypeInfo& r = f.sig->result;
  if (r.unqualified == spec.status.type || r.canonical == spec.status.type) {
    f.returns = Returns::kStatus;
  } else if (r.shape == Shape::kVoid) {
    f.returns = Returns::kVoid;
  } else if (r.shape == Shape::kScalar || (r.shape == Shape::kRecord && !r.record_has_pointer)) {
    f.returns = Returns::kValue;
    if (f.cls != CallClass::kSync) {
      *why = "returns a value (" + r.spelling + "); make it sync";
      return false;
    }
  } else {
    *why = "returns " + r.spelling + ", not " + spec.status.type +
           ", nothing or a value; mark it `client: FILE` with `server: none`, or unsupported";
    return false;
  }
  return true;
}

// Which handle parameters are of a type `answers:` describes, and through which kind of type.
void mark_described(const Spec& spec, Function& f) {
  if (!spec.answers) return;
  for (auto& p : f.params) {
    if (p.how != Marshal::kHandle && p.how != Marshal::kNewHandle) continue;
    if (spec.answers->described.count(p.handle_type)) p.described = Described::kMutable;
    else if (spec.answers->read_only.count(p.handle_type)) p.described = Described::kReadOnly;
  }
}

// A `cached` query: a sync call generated on the client, whose answer is its host outputs alone and
// whose question names only described handles or handles named by id.
void check_cached(const Spec& spec, const Function& f, Builder& b) {
  const std::string& name = f.name;
  if (!spec.answers) {
    b.error(f.where, name + ": `cached: true` needs the spec's `answers:` (which handles are described)");
    return;
  }
  if (f.cls != CallClass::kSync || !f.generated_stub || f.returns != Returns::kStatus)
    b.error(f.where, name + ": `cached: true` is for a sync call with a generated client stub that returns a status");
  bool has_out = false;
  for (const auto& p : f.params) {
    has_out |= p.how == Marshal::kOut || p.how == Marshal::kInOut;
    if (p.how == Marshal::kScalarOut || p.how == Marshal::kNewHandle || p.how == Marshal::kScratch ||
        p.how == Marshal::kInHandles)
      b.error(f.where, name + ": `cached: true` cannot keep what '" + p.name + "' carries (" + marshal_name(p.how) + ")");
    if (p.how == Marshal::kHandle && p.described == Described::kNo && !spec.answers->by_id.count(p.handle_type))
      b.error(f.where, name + ": `cached: true` names handle '" + p.name + "' (" + p.handle_type +
                           "), which `answers:` neither describes nor names by id");
  }
  if (!has_out) b.error(f.where, name + ": `cached: true` needs an output to keep");
}

}  // namespace

bool build_model(const Spec& spec, const std::vector<std::string>& exports, const SignatureMap& signatures,
                 Model* out, std::vector<std::string>* errors) {
  Builder b(spec, errors);
  std::set<std::string> exported(exports.begin(), exports.end());
  std::map<std::string, const EntrySpec*> exact;
  for (const auto& e : spec.functions) {
    exact[e.name] = &e;
    if (!exported.count(e.name)) {
      b.error(e.where, e.name + " is not exported by " + spec.soname + " (not in " + spec.exports_path +
                           "); fix the name or remove the entry");
    }
  }
  std::vector<bool> pattern_used(spec.patterns.size(), false);
  // Per pattern: the parameters it describes that one of its functions has.
  std::vector<std::set<std::string>> pattern_params_used(spec.patterns.size());
  std::map<uint32_t, std::string> ids;

  Model m;
  m.spec = spec;
  m.exports = exports;
  m.handles = spec.handles;
  for (const auto& [type, kind] : spec.handles) {
    if (kind.empty()) b.error({}, "handle type " + type + " needs a kind");
  }

  for (const std::string& name : exports) {
    Function f;
    f.name = name;
    const auto declared = signatures.find(name);
    // The file that declares it, for patterns that name one ("cublas.h": the legacy API).
    const std::string header = declared == signatures.end() ? "" : std::filesystem::path(declared->second.header).filename().string();
    const EntrySpec* entry = nullptr;
    bool exact_entry = false;
    if (auto it = exact.find(name); it != exact.end()) {
      entry = it->second;
      exact_entry = true;
      f.classified_by = "entry";
    } else {
      for (size_t i = 0; i < spec.patterns.size(); ++i) {
        if (fnmatch(spec.patterns[i].name.c_str(), name.c_str(), 0) == 0 &&
            (!spec.patterns[i].header || *spec.patterns[i].header == header)) {
          entry = &spec.patterns[i];
          pattern_used[i] = true;
          if (declared != signatures.end()) {
            for (const Param& p : declared->second.params) {
              if (entry->params.count(p.name)) pattern_params_used[i].insert(p.name);
            }
          }
          f.classified_by = "pattern " + entry->name;
          break;
        }
      }
    }
    if (entry) {
      f.where = entry->where;
      f.classified_by += " (" + std::filesystem::path(entry->where.file).filename().string() + ":" +
                         std::to_string(entry->where.line) + ")";
      f.cls = entry->cls;
      f.client_file = entry->client;
      if (entry->server && *entry->server != "none") f.server_file = entry->server;
      f.blocking = entry->blocking;
      f.outputs_on_failure = entry->outputs_on_failure;
      f.destroys = entry->destroys;
      f.cached = entry->cached;
      f.forgets_answers = entry->forgets_answers;
    } else {
      f.cls = spec.default_class;
      f.classified_by = "default";
    }
    bool server_none = entry && entry->server == "none";
    if (declared != signatures.end()) f.sig = declared->second;
    f.id = fnv1a32(name);
    if (auto [it, inserted] = ids.emplace(f.id, name); !inserted) {
      b.error(f.where, "call id collision between " + it->second + " and " + name + " (FNV-1a-32); rename cannot help: change the id scheme");
    }

    const Where& w = f.where;
    if (f.cls == CallClass::kUnsupported) {
      if (f.client_file || f.server_file || f.blocking || f.destroys) {
        b.error(w, name + " is unsupported: drop client/server/blocking/destroys or give it a class");
      }
      f.generated_stub = true;
      m.functions.push_back(std::move(f));
      continue;
    }
    if (f.cls == CallClass::kLocal && !f.client_file) {
      b.error(w, name + " is local but has no hand-written client side; add `client: FILE`");
    }
    if (!f.client_file && server_none) {
      b.error(w, name + " is forwarded by a generated stub but has `server: none`; remove it or add `client: FILE`");
    }
    f.generated_stub = !f.client_file;
    f.has_server = !server_none;
    f.generated_server = f.has_server && !f.server_file;
    f.remote_forwarder = f.client_file && (f.generated_server || (f.server_file && entry && entry->remote));
    bool needs_plan = f.generated_stub || f.generated_server || f.remote_forwarder;
    if (entry && entry->remote && !(f.client_file && f.server_file)) {
      b.error(w, name + ": `remote: true` asks for a generated remote:: forwarder to a hand-written server handler; "
                        "it needs both `client: FILE` and `server: FILE`");
    }
    f.in_api = f.declared() && (f.has_server || (entry && entry->api));
    if (entry && entry->api && (f.has_server || !f.declared())) {
      b.error(w, name + ": `api: true` puts a function without a call of its own in the server's Api table; it needs "
                        "`server: none` and a declaration in a parsed header");
    }
    if (f.blocking && f.cls != CallClass::kSync) b.error(w, name + ": only sync calls can be `blocking: true`");
    if (f.outputs_on_failure && (f.cls != CallClass::kSync || !f.generated_server || f.client_file))
      b.error(w, name + ": `outputs_on_failure: true` is for a sync call generated on both sides");
    if (f.destroys && !b.known_kind(*f.destroys)) {
      b.error(w, name + ": destroys '" + *f.destroys + "' is not a handle kind listed under handles");
    }
    if (needs_plan) {
      std::string why_not;
      if (!f.sig) {
        b.error(w, name + " is not declared by any parsed header, so it cannot be generated; mark it `client: FILE` and `server: FILE`/`server: none`, or unsupported");
      } else if (!classify_result(f, spec, &why_not)) {
        b.error(w, name + " " + why_not);
      } else if (b.plan(f, entry, exact_entry)) {
        for (const auto& p : f.params) {
          if (f.cls == CallClass::kAsync &&
              (p.how == Marshal::kOut || p.how == Marshal::kInOut || p.how == Marshal::kScalarOut)) {
            b.error(w, name + " is async but returns data through '" + p.name + "'; make it sync");
          }
        }
        if (f.destroys) {
          bool found = std::any_of(f.params.begin(), f.params.end(), [&](const ParamPlan& p) {
            return p.how == Marshal::kHandle && p.handle_kind == *f.destroys;
          });
          if (!found) b.error(w, name + ": destroys '" + *f.destroys + "' but takes no handle of that kind");
        }
        mark_described(spec, f);
        if (f.cached) check_cached(spec, f, b);
        if (f.forgets_answers && (!spec.answers || !f.generated_stub || f.cached))
          b.error(w, name + ": `forgets_answers: true` is for a generated stub of a spec with `answers:`, not a cached query");
      }
    }
    m.functions.push_back(std::move(f));
  }
  for (size_t i = 0; i < spec.patterns.size(); ++i) {
    for (const auto& [pname, ps] : spec.patterns[i].params) {
      if (pattern_used[i] && !pattern_params_used[i].count(pname)) {
        b.error(ps.where, "pattern '" + spec.patterns[i].name + "' describes parameter '" + pname +
                              "', which none of the functions it matches has; fix the name or remove it");
      }
    }
    if (!pattern_used[i]) {
      b.error(spec.patterns[i].where, "pattern '" + spec.patterns[i].name +
                                          "' matches no export left by the exact entries; remove it");
    }
  }

  uint64_t h = 14695981039346656037ull;
  for (const auto& f : m.functions) {
    h = fnv1a64(h, f.name + "|" + class_name(f.cls) + "|" + (f.client_file ? "c" : "") + (f.has_server ? "s" : "") +
                       (f.outputs_on_failure ? "f" : "") + (f.sig ? "|" + f.sig->result.spelling : ""));
    for (const auto& p : f.params) h = fnv1a64(h, p.type + ":" + marshal_name(p.how) + ":" + p.count);
  }
  m.api_hash = h;
  *out = std::move(m);
  return errors->empty();
}

}  // namespace rgpu::codegen
