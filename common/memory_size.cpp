// Memory sizes as people write them (see memory_size.h): an integer or a decimal number, then an
// optional binary unit. Exact integer arithmetic; the result must be a whole number of MiB.
#include "common/memory_size.h"

#include <cctype>
#include <limits>

namespace rgpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr const char* kHowTo =
    "write MiB as a plain number (4096) or with a unit: 4096M, 4096MiB, 4G, 4GiB, 1.5G";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Built by appending: GCC 12's -Wrestrict misfires on `"literal" + std::string` at -O3.
Status bad(std::string_view text, std::string_view why) {
  std::string m = "\"";
  m.append(text).append("\" is not a memory size (").append(why).append("): ").append(kHowTo);
  return Status(Code::kInvalidArgument, std::move(m));
}

}  // namespace

Result<uint64_t> parse_memory_size(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty()) return bad(text, "empty");

  // The number: digits, optionally '.' and more digits.
  size_t i = 0;
  uint64_t whole = 0;
  size_t whole_digits = 0;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, ++whole_digits) {
    uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (whole > (kMax - d) / 10) return bad(text, "too large");
    whole = whole * 10 + d;
  }
  uint64_t frac = 0, frac_scale = 1;
  size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, ++frac_digits) {
      if (frac_digits >= 9) return bad(text, "too many decimals");
      frac = frac * 10 + static_cast<uint64_t>(s[i] - '0');
      frac_scale *= 10;
    }
    if (frac_digits == 0) return bad(text, "a digit must follow the '.'");
  }
  if (whole_digits == 0) return bad(text, "it must start with a number");

  std::string_view unit_text = s.substr(i);
  while (!unit_text.empty() && unit_text.front() == ' ') unit_text.remove_prefix(1);
  const std::string unit = lower(unit_text);
  uint64_t unit_mib = 0;
  if (unit.empty() || unit == "m" || unit == "mi" || unit == "mib") {
    unit_mib = 1;
  } else if (unit == "g" || unit == "gi" || unit == "gib") {
    unit_mib = 1024;
  } else if (unit == "t" || unit == "ti" || unit == "tib") {
    unit_mib = 1024 * 1024;
  } else if (unit == "mb" || unit == "gb" || unit == "tb") {
    std::string why = "sizes are binary: say ";
    why.push_back(unit[0] == 'm' ? 'M' : unit[0] == 'g' ? 'G' : 'T');
    why.append(" or ").append(unit[0] == 'm' ? "MiB" : unit[0] == 'g' ? "GiB" : "TiB");
    return bad(text, why);
  } else if (unit == "k" || unit == "ki" || unit == "kib" || unit == "kb" || unit == "b") {
    return bad(text, "slices are whole MiB, so the smallest unit is M");
  } else {
    std::string why = "unknown unit '";
    why.append(unit_text).append("'");
    return bad(text, why);
  }

  // mib = whole * unit + frac * unit / frac_scale, the last term exact.
  if (whole > kMax / unit_mib) return bad(text, "too large");
  uint64_t mib = whole * unit_mib;
  const uint64_t frac_units = frac * unit_mib;  // frac < 1e9, unit_mib <= 2^20: no overflow
  if (frac_units % frac_scale != 0) return bad(text, "not a whole number of MiB");
  if (mib > kMax - frac_units / frac_scale) return bad(text, "too large");
  mib += frac_units / frac_scale;
  if (mib > kMax / kMiB) return bad(text, "too large");
  return mib * kMiB;
}

std::string format_mib(uint64_t bytes) {
  const uint64_t mib = bytes / kMiB;
  const uint64_t rest = bytes % kMiB;
  if (rest == 0) return std::to_string(mib) + " MiB";
  // One decimal, rounded to nearest.
  uint64_t tenths = mib * 10 + (rest * 10 + kMiB / 2) / kMiB;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB";
}

}  // namespace rgpu
