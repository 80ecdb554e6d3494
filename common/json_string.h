// A JSON string literal for any bytes: quotes, backslashes and control characters escaped (control
// characters as \u00XX), bytes that are not valid UTF-8 replaced by U+FFFD, so that the output is
// always valid JSON. The pool's control API and rgpud's JSON log lines use it.
#pragma once

#include <string>
#include <string_view>

namespace rgpu {

std::string json_string(std::string_view s);

}  // namespace rgpu
