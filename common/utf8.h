// UTF-8 validation for text that came from a client (program names, host names) and goes into
// output that must stay well-formed: the pool's JSON (server/pool/pool_admin.cpp) and Prometheus's
// text format (server/pool/pool_metrics.cpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace rgpu {

// The length of the valid UTF-8 sequence that starts at s[i] (1 for ASCII), or 0 where the bytes
// there are not one (a stray continuation byte, an overlong form, a surrogate, a cut sequence).
size_t utf8_sequence_length(std::string_view s, size_t i);

}  // namespace rgpu
