// What TLS means for a connection here, kept free of OpenSSL's headers so that the transport
// interface can carry a session from the process that accepted it to the one that serves it.
//
// Who may skip TLS is one rule for both ends (plaintext_allowed): off the host, connections are
// encrypted unless the operator or the user chose plain TCP. The peer's identity is not a
// certificate's: rgpud makes a throwaway self-signed one at start and clients accept any. Instead
// both ends prove the shared token inside the encrypted channel, bound to it (channel_binding): a
// proof made on one TLS connection is worthless on another, so a man in the middle, who must run
// two, can relay nothing (transports/handshake.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"

struct ssl_st;  // OpenSSL's SSL

namespace rgpu::transport::tls {

// RGPU_TLS: auto (the default), on, off.
enum class Mode { kAuto, kOn, kOff };
Result<Mode> parse_mode(const std::string& text);
// RGPU_TLS's value; a bad one is reported on stderr once and taken as auto.
Mode mode_from_environment();
const char* mode_name(Mode mode);

// auto: plain TCP only between two ends of one host (a loopback peer); on: never; off: always.
bool plaintext_allowed(Mode mode, bool peer_is_loopback);

struct SslFree {
  void operator()(ssl_st* ssl) const;
};
// Freeing a session sends nothing (no close_notify): the parent of a forked worker frees its
// copy while the worker goes on with the same session.
using SslPtr = std::unique_ptr<ssl_st, SslFree>;

// 32 bytes both ends of one TLS connection derive alike (RFC 5705 keying material, RFC 9266's
// exporter label), and no other connection shares.
inline constexpr size_t kBindingSize = 32;
using Binding = std::array<uint8_t, kBindingSize>;
Result<Binding> channel_binding(ssl_st* ssl);

// The first byte of a TLS connection's first record (a handshake record); an rgpu frame starts
// with its magic's first byte instead.
inline constexpr uint8_t kHandshakeRecord = 0x16;

}  // namespace rgpu::transport::tls
