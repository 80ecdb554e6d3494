// Reader: libclang C API over the library headers -> SignatureMap.
#include "reader.h"

#include <clang-c/Index.h>

#include <cstdio>
#include <memory>
#include <string_view>

namespace rgpu::codegen {
namespace {

std::string take(CXString s) {
  std::string r = clang_getCString(s) ? clang_getCString(s) : "";
  clang_disposeString(s);
  return r;
}

bool is_scalar_kind(CXTypeKind k) {
  return (k >= CXType_FirstBuiltin && k <= CXType_LastBuiltin && k != CXType_Void) || k == CXType_Enum;
}

bool record_has_pointer(CXType record);

bool type_holds_pointer(CXType t) {
  CXType c = clang_getCanonicalType(t);
  switch (c.kind) {
    case CXType_Pointer:
    case CXType_LValueReference:
    case CXType_RValueReference:
    case CXType_MemberPointer:
      return true;
    case CXType_Record:
      return record_has_pointer(c);
    case CXType_ConstantArray:
    case CXType_IncompleteArray:
      return type_holds_pointer(clang_getArrayElementType(c));
    default:
      return false;
  }
}

bool record_has_pointer(CXType record) {
  bool found = false;
  clang_Type_visitFields(
      record,
      [](CXCursor field, CXClientData data) {
        bool* f = static_cast<bool*>(data);
        if (type_holds_pointer(clang_getCursorType(field))) {
          *f = true;
          return CXVisit_Break;
        }
        return CXVisit_Continue;
      },
      &found);
  return found;
}

TypeInfo describe(CXType t) {
  TypeInfo info;
  info.spelling = take(clang_getTypeSpelling(t));
  info.unqualified = info.spelling;
  CXType c = clang_getCanonicalType(t);
  info.canonical = take(clang_getTypeSpelling(c));
  // Top-level const: trailing on a pointer ("const float *const"), leading otherwise.
  constexpr std::string_view kConst = "const";
  if (clang_isConstQualifiedType(t) && c.kind == CXType_Pointer && info.unqualified.ends_with(kConst)) {
    info.unqualified.resize(info.unqualified.size() - kConst.size());
    while (info.unqualified.ends_with(' ')) info.unqualified.pop_back();
  } else if (clang_isConstQualifiedType(t) && info.unqualified.rfind("const ", 0) == 0) {
    info.unqualified = info.unqualified.substr(6);
  }
  if (c.kind == CXType_Void) {
    info.shape = Shape::kVoid;
  } else if (is_scalar_kind(c.kind)) {
    info.shape = Shape::kScalar;
    info.is_enum = c.kind == CXType_Enum;
    info.is_bool = c.kind == CXType_Bool;
  } else if (c.kind == CXType_Record) {
    info.shape = Shape::kRecord;
    info.record_has_pointer = record_has_pointer(c);
  } else if (c.kind == CXType_Pointer) {
    CXTypeKind pk = clang_getCanonicalType(clang_getPointeeType(c)).kind;
    info.shape = (pk == CXType_FunctionProto || pk == CXType_FunctionNoProto) ? Shape::kFunctionPointer
                                                                              : Shape::kPointer;
  }
  return info;
}

Signature read_function(CXCursor fn) {
  Signature sig;
  sig.name = take(clang_getCursorSpelling(fn));
  sig.result = describe(clang_getCursorResultType(fn));
  int n = clang_Cursor_getNumArguments(fn);
  for (int i = 0; i < n; ++i) {
    CXCursor arg = clang_Cursor_getArgument(fn, static_cast<unsigned>(i));
    Param p;
    p.name = take(clang_getCursorSpelling(arg));
    if (p.name.empty()) {
      // Formatted, not "p" + to_string(i): GCC 12 at -O3 misreads the string concatenation as an
      // overlapping copy (-Wrestrict), which fails Release builds.
      char name[16];
      std::snprintf(name, sizeof name, "p%d", i);
      p.name = name;
    }
    CXType t = clang_getCursorType(arg);
    p.type = describe(t);
    if (t.kind == CXType_IncompleteArray || t.kind == CXType_ConstantArray) {
      // `T x[]` is a `T*` parameter: spell it so, for declarations.
      CXType elem = clang_getArrayElementType(t);
      p.type.spelling = p.type.unqualified = take(clang_getTypeSpelling(elem)) + " *";
      p.type.shape = Shape::kPointer;
      p.pointee = describe(elem);
      p.pointee_const = clang_isConstQualifiedType(elem);
    } else if (p.type.shape == Shape::kPointer) {
      CXType pointee = clang_getPointeeType(t);
      p.pointee = describe(pointee);
      p.pointee_const = clang_isConstQualifiedType(pointee);
    }
    sig.params.push_back(std::move(p));
  }
  CXFile file;
  clang_getSpellingLocation(clang_getCursorLocation(fn), &file, nullptr, nullptr, nullptr);
  sig.header = file ? take(clang_getFileName(file)) : "";
  return sig;
}

struct VisitState {
  SignatureMap* out;
  bool plain;
};

CXChildVisitResult visit(CXCursor cursor, CXCursor, CXClientData data) {
  auto* state = static_cast<VisitState*>(data);
  switch (clang_getCursorKind(cursor)) {
    case CXCursor_LinkageSpec:
    case CXCursor_UnexposedDecl:
      clang_visitChildren(cursor, visit, data);
      break;
    case CXCursor_FunctionDecl: {
      Signature sig = read_function(cursor);
      auto [it, inserted] = state->out->emplace(sig.name, sig);
      if (state->plain) it->second.in_plain_pass = true;
      break;
    }
    default:
      break;
  }
  return CXChildVisit_Continue;
}

}  // namespace

bool read_signatures(const ReaderOptions& options, SignatureMap* out, std::string* error) {
  std::string source;
  for (const auto& h : options.headers) source += "#include <" + h + ">\n";
  std::vector<std::string> args = {"-x", "c++", "-std=c++17"};
  if (!options.resource_include.empty()) args.push_back("-isystem" + options.resource_include);
  for (const auto& dir : options.include_dirs) args.push_back("-I" + dir);
  if (options.per_thread_pass) args.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());

  CXUnsavedFile unsaved{"rgpu_codegen_input.cpp", source.c_str(), static_cast<unsigned long>(source.size())};
  std::unique_ptr<void, void (*)(CXIndex)> index(clang_createIndex(0, 0), clang_disposeIndex);
  CXTranslationUnit tu = nullptr;
  CXErrorCode rc = clang_parseTranslationUnit2(index.get(), unsaved.Filename, argv.data(),
                                               static_cast<int>(argv.size()), &unsaved, 1,
                                               CXTranslationUnit_SkipFunctionBodies, &tu);
  if (rc != CXError_Success || !tu) {
    *error = "libclang could not parse the headers (error " + std::to_string(rc) + ")";
    return false;
  }
  std::string diagnostics;
  for (unsigned i = 0, n = clang_getNumDiagnostics(tu); i < n; ++i) {
    CXDiagnostic d = clang_getDiagnostic(tu, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      diagnostics += take(clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions())) + "\n";
    }
    clang_disposeDiagnostic(d);
  }
  if (!diagnostics.empty()) {
    clang_disposeTranslationUnit(tu);
    *error = "errors while parsing the headers (check --cuda-include and --clang-include):\n" + diagnostics;
    return false;
  }
  VisitState state{out, !options.per_thread_pass};
  clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &state);
  clang_disposeTranslationUnit(tu);
  return true;
}

}  // namespace rgpu::codegen
