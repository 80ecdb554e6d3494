// kernel_params_from_ptx: parameter layouts from PTX `.entry name ( .param ... )` declarations,
// laid out as the ABI does: each parameter at the next multiple of its alignment (the explicit
// `.align N` before the type, else the type's size).
#include <charconv>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "common/fatbin/fatbin.h"

namespace rgpu::fatbin {
namespace {

// Splits PTX into tokens: directives and identifiers ([.%$_A-Za-z0-9]+) and single punctuation
// characters; comments, whitespace and string literals are dropped.
class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : text_(text) {}

  // The next token, or an empty view at the end.
  std::string_view next() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "//") {
        skip_past("\n", 1);
      } else if (text_.substr(pos_, 2) == "/*") {
        skip_past("*/", 2);
      } else if (c == '"') {
        ++pos_;
        skip_past("\"", 1);
      } else if (is_word(c)) {
        size_t start = pos_;
        while (pos_ < text_.size() && is_word(text_[pos_])) ++pos_;
        return text_.substr(start, pos_ - start);
      } else {
        return text_.substr(pos_++, 1);
      }
    }
    return {};
  }

 private:
  static bool is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '$' || c == '%';
  }
  void skip_past(std::string_view end, size_t length) {
    size_t found = text_.find(end, pos_);
    pos_ = found == std::string_view::npos ? text_.size() : found + length;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Size in bytes of a PTX fundamental type usable as a kernel parameter.
std::optional<uint32_t> type_size(std::string_view type) {
  static constexpr std::pair<std::string_view, uint32_t> kTypes[] = {
      {".b8", 1},  {".s8", 1},  {".u8", 1},    {".b16", 2},    {".s16", 2},
      {".u16", 2}, {".f16", 2}, {".bf16", 2},  {".b32", 4},    {".s32", 4},
      {".u32", 4}, {".f32", 4}, {".f16x2", 4}, {".bf16x2", 4}, {".b64", 8},
      {".s64", 8}, {".u64", 8}, {".f64", 8},   {".b128", 16}};
  for (const auto& [name, size] : kTypes)
    if (name == type) return size;
  return std::nullopt;
}

std::optional<uint32_t> number(std::string_view token) {
  uint32_t value = 0;
  int base = 10;
  if (token.size() > 2 && token[0] == '0' && (token[1] == 'x' || token[1] == 'X')) {
    token.remove_prefix(2);
    base = 16;
  }
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value, base);
  if (error != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

class EntryParser {
 public:
  explicit EntryParser(std::string_view ptx) : tokens_(ptx) {}

  Result<std::vector<KernelParams>> parse() {
    std::vector<KernelParams> result;
    std::set<std::string, std::less<>> seen;
    for (std::string_view t = tokens_.next(); !t.empty(); t = tokens_.next()) {
      if (t != ".entry") continue;
      std::string_view name = tokens_.next();
      if (!is_identifier(name)) return RGPU_ERROR(kInvalidArgument, "PTX .entry without a name");
      KernelParams kernel{std::string(name), {}};
      RGPU_TRY(parse_params(&kernel));
      // A kernel declared twice (a prototype and its definition) is reported once.
      if (seen.insert(kernel.name).second) result.push_back(std::move(kernel));
    }
    return result;
  }

 private:
  // PTX identifiers start with a letter, or with _ $ % followed by more.
  static bool is_identifier(std::string_view t) {
    if (t.empty()) return false;
    const char c = t[0];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           ((c == '_' || c == '$' || c == '%') && t.size() > 1);
  }

  Status error(const KernelParams& k, const std::string& what) {
    return RGPU_ERROR(kInvalidArgument, "PTX .entry " + k.name + ": " + what);
  }

  // Reads `( .param ..., ... )` after the name. A kernel without a list has no parameters (the
  // token read instead, `{` or a directive, is not needed by the scan for .entry).
  Status parse_params(KernelParams* kernel) {
    if (tokens_.next() != "(") return Status::ok();
    uint32_t offset = 0;
    std::string_view t = tokens_.next();
    if (t == ")") return Status::ok();
    for (;;) {
      if (t != ".param") return error(*kernel, "expected .param, got '" + std::string(t) + "'");
      uint32_t align = 0, size = 0;
      RGPU_TRY(parse_param(*kernel, &align, &size, &t));
      if (offset % align != 0) offset += align - offset % align;
      if (size > kMaxParamSpace - offset)
        return error(*kernel, "parameters exceed the parameter space");
      kernel->params.push_back({offset, size});
      offset += size;
      if (t == ")") return Status::ok();
      if (t != ",") return error(*kernel, "expected ',' or ')' after a parameter");
      t = tokens_.next();
    }
  }

  // One `.param [.align N] .type [.ptr [.space] [.align N]] name [ '[' count ']' ]`; leaves in *t
  // the token after it. An .align after .ptr is the pointee's, not the parameter's.
  Status parse_param(const KernelParams& k, uint32_t* align, uint32_t* size, std::string_view* t) {
    std::optional<uint32_t> element, explicit_align;
    bool pointer = false, named = false;
    uint32_t count = 1;
    for (*t = tokens_.next(); !t->empty() && *t != "," && *t != ")"; *t = tokens_.next()) {
      if (*t == ".align") {
        auto n = number(tokens_.next());
        if (!n || *n == 0 || (*n & (*n - 1)) != 0 || *n > kMaxParamSpace)
          return error(k, "bad .align");
        if (!pointer) explicit_align = n;
      } else if (*t == ".ptr") {
        pointer = true;
      } else if (auto s = type_size(*t); s && !element) {
        element = s;
      } else if (*t == "[") {
        auto n = number(tokens_.next());
        if (!n || *n == 0 || *n > kMaxParamSpace || tokens_.next() != "]")
          return error(k, "bad array size");
        count = *n;
      } else if ((*t)[0] == '.') {
        if (!pointer) return error(k, "unsupported parameter directive " + std::string(*t));
        // the state space of a .ptr parameter (.global, .const, ...)
      } else if (!named && is_identifier(*t)) {
        named = true;
      } else {
        return error(k, "unexpected '" + std::string(*t) + "' in a parameter");
      }
    }
    if (!element || !named) return error(k, "parameter without a type or a name");
    *size = *element * count;
    *align = explicit_align.value_or(*element);
    if (*size > kMaxParamSpace) return error(k, "parameter larger than the parameter space");
    return Status::ok();
  }

  // Generous bound (the real limit is 32,764 bytes) that keeps all arithmetic inside 32 bits.
  static constexpr uint32_t kMaxParamSpace = 1u << 20;

  Tokenizer tokens_;
};

}  // namespace

Result<std::vector<KernelParams>> kernel_params_from_ptx(std::string_view ptx) {
  return EntryParser(ptx).parse();
}

}  // namespace rgpu::fatbin
