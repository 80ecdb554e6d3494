// PTX declarations: `[.visible|.weak|.common] (.global|.const) [.align N] [.vN] .type name[dims]
// [= initializer];` at module scope and `.shared ... ;` inside an entry's body.
#include "server/backends/emulated/ptx_symbols.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace rgpu::server::emulated {
namespace {

constexpr uint64_t kMaxVariableBytes = uint64_t{1} << 34;  // far above any real device variable

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '%'; }

// Splits a declaration into words and the punctuation [ ] { } = , as single tokens.
std::vector<std::string_view> tokenize(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (is_word(c) || c == '-') {
      size_t j = i + 1;
      while (j < s.size() && is_word(s[j])) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else {
      out.push_back(s.substr(i, 1));
      ++i;
    }
  }
  return out;
}

uint32_t type_size(std::string_view type) {
  static const std::pair<const char*, uint32_t> kSizes[] = {
      {".b8", 1},  {".u8", 1},  {".s8", 1},  {".b16", 2}, {".u16", 2}, {".s16", 2}, {".f16", 2}, {".bf16", 2},
      {".b32", 4}, {".u32", 4}, {".s32", 4}, {".f32", 4}, {".b64", 8}, {".u64", 8}, {".s64", 8}, {".f64", 8},
  };
  for (const auto& [name, size] : kSizes)
    if (type == name) return size;
  return 0;
}

bool parse_u64(std::string_view text, uint64_t* out) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out, base);
  return ec == std::errc() && end == text.data() + text.size();
}

// One initializer element, encoded little-endian in `size` bytes: an integer (decimal, hex,
// negative) or a float in PTX's hex forms 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX.
bool encode_value(std::string_view text, uint32_t size, std::vector<uint8_t>* out) {
  uint64_t bits = 0;
  bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'f' || text[1] == 'd' || text[1] == 'F' || text[1] == 'D')) {
    auto [end, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), bits, 16);
    if (ec != std::errc() || end != text.data() + text.size()) return false;
  } else if (!parse_u64(text, &bits)) {
    return false;
  }
  if (negative) bits = ~bits + 1;
  for (uint32_t i = 0; i < size; ++i) out->push_back(static_cast<uint8_t>(bits >> (8 * i)));
  return true;
}

class Declaration {
 public:
  explicit Declaration(std::string_view text) : tokens_(tokenize(text)) {}

  // Reads "... .space [.align N] [.vN] .type name[dims] [= init]" from the token after the
  // state space; returns the variable's name, size and initial bytes.
  Status parse(std::string* name, PtxVariable* var) {
    uint32_t vector = 1, element = 0;
    while (pos_ < tokens_.size() && element == 0) {
      std::string_view t = tokens_[pos_++];
      uint64_t n = 0;
      if (t == ".align") {
        if (pos_ >= tokens_.size() || !parse_u64(tokens_[pos_++], &n)) return error("bad .align");
      } else if (t == ".v2" || t == ".v4" || t == ".v8") {
        vector = static_cast<uint32_t>(t[2] - '0');
      } else if (t.starts_with(".attribute") || t == "(" || t == ")" || t == ".managed") {
        continue;  // .attribute(.managed): storage is the same here
      } else if (!(element = type_size(t))) {
        return error("unknown type '" + std::string(t) + "'");
      }
    }
    if (element == 0 || pos_ >= tokens_.size()) return error("missing type or name");
    *name = std::string(tokens_[pos_++]);
    uint64_t count = 1;
    bool open_dimension = false;  // "[]": the initializer gives the count
    while (pos_ < tokens_.size() && tokens_[pos_] == "[") {
      uint64_t n = 0;
      if (pos_ + 1 < tokens_.size() && tokens_[pos_ + 1] == "]") {
        open_dimension = true;
        pos_ += 2;
        continue;
      }
      if (pos_ + 2 >= tokens_.size() || !parse_u64(tokens_[pos_ + 1], &n) || tokens_[pos_ + 2] != "]")
        return error("bad array dimension");
      if (n != 0 && count > kMaxVariableBytes / n) return error("too large");
      count *= n;
      pos_ += 3;
    }
    uint32_t unit = element * vector;
    if (pos_ < tokens_.size() && tokens_[pos_] == "=") {
      ++pos_;
      for (; pos_ < tokens_.size(); ++pos_) {
        std::string_view t = tokens_[pos_];
        if (t == "{" || t == "}" || t == ",") continue;
        if (!encode_value(t, element, &var->initial))
          return error("initializer '" + std::string(t) + "' is not a constant");
      }
    } else if (pos_ != tokens_.size()) {
      return error("unexpected '" + std::string(tokens_[pos_]) + "'");
    }
    if (open_dimension) count = (var->initial.size() + unit - 1) / unit;
    if (count > kMaxVariableBytes / unit) return error("too large");
    var->size = count * unit;
    if (var->initial.size() > var->size) return error("initializer larger than the variable");
    return Status::ok();
  }

  // Skips labels and linkage words; true when the declaration's state space is `space`.
  bool declares(std::string_view space) {
    for (;;) {
      if (pos_ + 1 < tokens_.size() && tokens_[pos_ + 1] == ":")
        pos_ += 2;
      else if (pos_ < tokens_.size() &&
               (tokens_[pos_] == ".visible" || tokens_[pos_] == ".weak" || tokens_[pos_] == ".common"))
        ++pos_;
      else
        break;
    }
    if (pos_ < tokens_.size() && tokens_[pos_] == space) {
      ++pos_;
      return true;
    }
    return false;
  }

 private:
  Status error(const std::string& what) const {
    std::string text;
    for (std::string_view t : tokens_) (text += t) += ' ';
    return RGPU_ERROR(kInvalidArgument, "PTX declaration '" + text.substr(0, 120) + "': " + what);
  }

  std::vector<std::string_view> tokens_;
  size_t pos_ = 0;
};

// The text with comments and the line directives that end without a semicolon blanked out, so
// that only braces and semicolons delimit statements.
std::string strip_comments_and_line_directives(std::string_view ptx) {
  std::string out(ptx);
  for (size_t line = 0; line < out.size();) {
    size_t end = out.find('\n', line);
    end = end == std::string::npos ? out.size() : end;
    size_t first = out.find_first_not_of(" \t", line);
    if (first < end) {
      std::string_view text(out.data() + first, end - first);
      for (const char* directive : {".version", ".target", ".address_size", ".file", ".loc"})
        if (text.starts_with(directive)) std::fill(out.begin() + static_cast<long>(first), out.begin() + static_cast<long>(end), ' ');
    }
    line = end + 1;
  }
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '/' && out[i + 1] == '/') {
      for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
    } else if (out[i] == '/' && out[i + 1] == '*') {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i) out[i] = out[i] == '\n' ? '\n' : ' ';
      --i;
    }
  }
  return out;
}

// The thread count an entry header's .maxntid or .reqntid allows (0 when it has none).
uint64_t entry_max_threads(std::string_view header) {
  std::vector<std::string_view> t = tokenize(header);
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != ".maxntid" && t[i] != ".reqntid") continue;
    uint64_t product = 1;
    for (size_t j = i + 1; j < t.size() && j <= i + 5; j += 2) {  // "x , y , z"
      uint64_t n = 0;
      if (!parse_u64(t[j], &n) || n == 0) break;
      product *= n;
      if (j + 1 >= t.size() || t[j + 1] != ",") break;
    }
    return product;
  }
  return 0;
}

std::string_view entry_name(std::string_view statement) {
  size_t at = statement.find(".entry");
  if (at == std::string_view::npos) return {};
  std::vector<std::string_view> t = tokenize(statement.substr(at + 6));
  return t.empty() ? std::string_view{} : t[0];
}

}  // namespace

Result<PtxSymbols> read_ptx_symbols(std::string_view ptx) {
  std::string text = strip_comments_and_line_directives(ptx);
  PtxSymbols out;
  std::string_view entry;  // the kernel whose body we are in
  int depth = 0;
  size_t start = 0;  // of the current statement
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != ';' && c != '{' && c != '}') continue;  // statements may span lines
    std::string_view statement(text.data() + start, i - start);
    if (c == '{') {
      // An initializer's brace belongs to its declaration; anything else opens a body.
      if (statement.find('=') != std::string_view::npos && depth == 0) continue;
      if (depth == 0) {
        entry = entry_name(statement);
        uint64_t threads = entry.empty() ? 0 : entry_max_threads(statement);
        if (threads > 0 && threads <= UINT32_MAX) out.max_threads[std::string(entry)] = static_cast<uint32_t>(threads);
      }
      ++depth;
      start = i + 1;
      continue;
    }
    if (c == '}') {
      if (depth == 0) continue;  // closes an initializer list
      if (--depth == 0) entry = {};
      start = i + 1;
      continue;
    }
    start = i + 1;  // c == ';'
    Declaration d(statement);
    std::string name;
    PtxVariable var;
    if (depth == 0 && (d.declares(".global") || d.declares(".const"))) {
      Status parsed = d.parse(&name, &var);
      if (parsed.is_ok())
        out.variables[name] = std::move(var);
      else if (!name.empty())
        out.unreadable[name] = parsed.message();
      else
        return parsed;
    } else if (depth > 0 && !entry.empty() && d.declares(".shared")) {
      RGPU_TRY(d.parse(&name, &var));
      out.static_shared[std::string(entry)] += var.size;
    }
  }
  if (depth != 0) return RGPU_ERROR(kInvalidArgument, "PTX: unbalanced braces");
  if (text.find_first_not_of(" \t\r\n", start) != std::string::npos)
    return RGPU_ERROR(kInvalidArgument, "PTX: unterminated statement at the end");
  return out;
}

}  // namespace rgpu::server::emulated
