// Token authentication primitives: challenge nonces, HMAC-SHA256 proofs and their constant-time
// comparison. The shared token never crosses the wire; only HMAC(token, nonce) does.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace rgpu::auth {

inline constexpr size_t kNonceSize = 32;
inline constexpr size_t kMacSize = 32;  // SHA-256

using Nonce = std::array<uint8_t, kNonceSize>;
using Mac = std::array<uint8_t, kMacSize>;

// 32 bytes from the kernel's CSPRNG (getrandom). There is no usable fallback for a security nonce,
// so a failure of the kernel source aborts the process with a message rather than weakening it.
Nonce random_nonce();

// HMAC-SHA256 keyed by the token over the message (the server's nonce).
Mac hmac_sha256(std::string_view token, std::span<const uint8_t> message);

// True when both are the same length and equal; the time taken does not depend on where they
// differ, so a peer cannot guess a proof byte by byte.
bool equal_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b);

}  // namespace rgpu::auth
