// A strict JSON checker for the tests of JSON output (the pool's control API, rgpud's log lines):
// the RFC 8259 grammar, strings valid UTF-8 with legal escapes.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>

namespace rgpu::test {

class JsonChecker {
 public:
  explicit JsonChecker(const std::string& s) : s_(s) {}
  bool valid() {
    ws();
    if (!value()) return false;
    ws();
    return i_ == s_.size();
  }

 private:
  bool value() {
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return string();
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) return number();
    return literal("true") || literal("false") || literal("null");
  }
  bool literal(const char* w) {
    const std::string word(w);
    if (s_.compare(i_, word.size(), word) != 0) return false;
    i_ += word.size();
    return true;
  }
  bool object() {
    ++i_;
    ws();
    if (peek('}')) return ++i_, true;
    for (;;) {
      ws();
      if (!string()) return false;
      ws();
      if (!peek(':')) return false;
      ++i_;
      ws();
      if (!value()) return false;
      ws();
      if (peek(',')) { ++i_; continue; }
      if (peek('}')) return ++i_, true;
      return false;
    }
  }
  bool array() {
    ++i_;
    ws();
    if (peek(']')) return ++i_, true;
    for (;;) {
      ws();
      if (!value()) return false;
      ws();
      if (peek(',')) { ++i_; continue; }
      if (peek(']')) return ++i_, true;
      return false;
    }
  }
  bool string() {
    if (!peek('"')) return false;
    ++i_;
    while (i_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') return ++i_, true;
      if (c < 0x20) return false;
      if (c == '\\') {
        ++i_;
        if (i_ >= s_.size()) return false;
        const char e = s_[i_];
        if (e == 'u') {
          for (int k = 1; k <= 4; ++k)
            if (i_ + k >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_ + k]))) return false;
          i_ += 5;
          continue;
        }
        if (std::string("\"\\/bfnrt").find(e) == std::string::npos) return false;
        ++i_;
        continue;
      }
      size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
      if (len == 0 || i_ + len > s_.size()) return false;
      for (size_t k = 1; k < len; ++k)
        if ((static_cast<unsigned char>(s_[i_ + k]) & 0xc0) != 0x80) return false;
      i_ += len;
    }
    return false;
  }
  bool number() {
    const size_t start = i_;
    if (peek('-')) ++i_;
    if (!digits()) return false;
    if (peek('.')) {
      ++i_;
      if (!digits()) return false;
    }
    if (peek('e') || peek('E')) {
      ++i_;
      if (peek('+') || peek('-')) ++i_;
      if (!digits()) return false;
    }
    return i_ > start;
  }
  bool digits() {
    const size_t start = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    return i_ > start;
  }
  bool peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  const std::string& s_;
  size_t i_ = 0;
};

inline bool valid_json(const std::string& s) { return JsonChecker(s).valid(); }

}  // namespace rgpu::test
