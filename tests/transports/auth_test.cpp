// The handshake's authentication primitives (common/auth): HMAC against RFC 4231, nonces, and
// the comparison of proofs.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "common/auth.h"

using namespace rgpu;

namespace {

std::string hex(std::span<const uint8_t> bytes) {
  std::string out;
  char buf[3];
  for (uint8_t b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    out += buf;
  }
  return out;
}

std::span<const uint8_t> bytes_of(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

}  // namespace

TEST_CASE("auth: HMAC-SHA256 matches RFC 4231 test case 2") {
  auth::Mac mac = auth::hmac_sha256("Jefe", bytes_of("what do ya want for nothing?"));
  CHECK(hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("auth: nonces are fresh each time") {
  auth::Nonce a = auth::random_nonce();
  auth::Nonce b = auth::random_nonce();
  CHECK(a != b);
  CHECK(a != auth::Nonce{});
}

TEST_CASE("auth: proofs compare equal only when identical in length and content") {
  const auth::Nonce nonce = auth::random_nonce();
  const auth::Mac right = auth::hmac_sha256("token", nonce);
  auth::Mac wrong = right;
  wrong[31] ^= 1;
  CHECK(auth::equal_constant_time(right, auth::hmac_sha256("token", nonce)));
  CHECK_FALSE(auth::equal_constant_time(right, wrong));
  CHECK_FALSE(auth::equal_constant_time(right, auth::hmac_sha256("token2", nonce)));
  CHECK_FALSE(auth::equal_constant_time(right, std::span<const uint8_t>(right).first(16)));
  CHECK_FALSE(auth::equal_constant_time(right, {}));
}
