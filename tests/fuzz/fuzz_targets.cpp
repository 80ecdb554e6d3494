// The fuzz targets: handshake sides and a frame reader loop over a scripted connection.
#include "tests/fuzz/fuzz_targets.h"

#include <cstring>

#include "common/wire/control.h"
#include "tests/fuzz/scripted_connection.h"

namespace rgpu::fuzz {

namespace fb = wire::fb;

namespace {

// Reads frames until the peer stops: headers validated, payload bounded by the header limits,
// control payloads verified as the message their method names, bulk skipped.
Status read_frames(ScriptedConnection& connection) {
  std::vector<uint8_t> payload;
  for (;;) {
    wire::FrameHeader header;
    RGPU_TRY(connection.recv_header(header));
    // A payload longer than the rest of the script fails its receive as a peer that hangs up does;
    // sizing a buffer for it first (up to 64 MiB, zeroed) took most of this target's time.
    if (header.payload_len > connection.remaining()) return connection.recv_exact(nullptr, header.payload_len);
    payload.resize(header.payload_len);
    RGPU_TRY(connection.recv_exact(payload.data(), payload.size()));
    if (header.kind == static_cast<uint16_t>(wire::FrameKind::kControl))
      RGPU_TRY(wire::verify_control_message(header.method, payload));
    RGPU_TRY(connection.skip(header.bulk_len));
  }
}

void append_frame(std::vector<uint8_t>& out, const wire::FrameHeader& header, std::span<const uint8_t> payload) {
  const auto* h = reinterpret_cast<const uint8_t*>(&header);
  out.insert(out.end(), h, h + sizeof header);
  out.insert(out.end(), payload.begin(), payload.end());
}

void append_control(std::vector<uint8_t>& out, fb::ControlType type, const flatbuffers::FlatBufferBuilder& b) {
  append_frame(out, wire::control_header(type, b.GetSize()), wire::control_bytes(b));
}

// Finds the Refused frame among the frames in `sent` and reads its reason; false if there is none.
bool refusal_in(const std::vector<uint8_t>& sent, std::string* reason) {
  size_t pos = 0;
  while (sent.size() - pos >= sizeof(wire::FrameHeader)) {
    wire::FrameHeader h;
    std::memcpy(&h, sent.data() + pos, sizeof h);
    pos += sizeof h;
    if (sent.size() - pos < h.payload_len) return false;
    std::vector<uint8_t> payload(sent.begin() + static_cast<ptrdiff_t>(pos),
                                 sent.begin() + static_cast<ptrdiff_t>(pos + h.payload_len));
    pos += h.payload_len + h.bulk_len;
    if (h.method != static_cast<uint32_t>(fb::ControlType::Refused)) continue;
    auto refused = wire::verify_control<fb::Refused>(payload);
    if (!refused.is_ok()) return false;
    *reason = wire::view(refused.value()->reason());
    return true;
  }
  return false;
}

}  // namespace

transport::ClientIdentity fuzz_client() { return {kProtocolVersion, kApiHash, "fuzz-client", "fuzzhost", 7}; }

transport::ServerIdentity fuzz_server(bool with_token) {
  return {kProtocolVersion, kApiHash, "fuzz-server", {with_token ? std::string(kToken) : std::string()}};
}

Run run_target(Target target, std::span<const uint8_t> input) {
  ScriptedConnection connection(input);
  Run run{target, Status::ok(), {}};
  switch (target) {
    case Target::kServerWithToken:
    case Target::kServerWithoutToken: {
      transport::ClientIdentity who;
      run.status = transport::server_authenticate(connection, fuzz_server(target == Target::kServerWithToken), &who);
      break;
    }
    case Target::kClient: {
      transport::Welcome welcome;
      run.status = transport::client_handshake(connection, fuzz_client(), kToken, &welcome);
      break;
    }
    case Target::kFrameReader:
      run.status = read_frames(connection);
      break;
  }
  run.sent = connection.sent();
  return run;
}

std::string invariant_violation(const Run& run) {
  const Code code = run.status.code();
  if (run.status.message().empty() && !run.status.is_ok()) return "an error without a message";
  if (run.status.is_ok()) {
    if (run.target == Target::kServerWithToken) return "authenticated without knowing the token";
    if (run.target == Target::kFrameReader) return "the reader loop ended without an error";
    return {};
  }
  if (code != Code::kProtocol && code != Code::kClosed && code != Code::kAuth)
    return std::string("an error of kind '") + code_name(code) + "' from peer input: " + run.status.message();
  if (run.target == Target::kFrameReader && code == Code::kAuth) return "the frame reader reported kAuth";
  const bool server = run.target == Target::kServerWithToken || run.target == Target::kServerWithoutToken;
  if (server && code != Code::kClosed) {
    std::string reason;
    if (!refusal_in(run.sent, &reason)) return "the server failed without sending Refused: " + run.status.message();
    if (!run.status.message().starts_with(reason))
      return "the Refused reason \"" + reason + "\" is not the error: " + run.status.message();
  }
  return {};
}

std::string handshake_violation(std::span<const uint8_t> input) {
  if (input.empty()) return {};
  const Target side = kHandshakeSides[input[0] % std::size(kHandshakeSides)];
  return invariant_violation(run_target(side, input.subspan(1)));
}

std::string frames_violation(std::span<const uint8_t> input) {
  return invariant_violation(run_target(Target::kFrameReader, input));
}

std::vector<uint8_t> valid_client_stream() {
  std::vector<uint8_t> out;
  flatbuffers::FlatBufferBuilder b;
  const auto client = fuzz_client();
  b.Finish(fb::CreateHelloDirect(b, client.protocol_version, client.api_hash, client.client_version.c_str(),
                                 client.host.c_str(), client.pid));
  append_control(out, fb::ControlType::Hello, b);
  b.Clear();
  b.Finish(fb::CreateProof(b));
  append_control(out, fb::ControlType::Proof, b);
  return out;
}

std::vector<uint8_t> valid_server_stream() {
  std::vector<uint8_t> out;
  flatbuffers::FlatBufferBuilder b;
  const std::vector<uint8_t> nonce(32, 0x42);
  b.Finish(fb::CreateChallengeDirect(b, kProtocolVersion, kApiHash, "fuzz-server", &nonce, false));
  append_control(out, fb::ControlType::Challenge, b);
  b.Clear();
  std::vector<flatbuffers::Offset<fb::DeviceInfo>> devices = {
      fb::CreateDeviceInfoDirect(b, 0, "Fuzz GPU", 1ull << 34, 9, 0)};
  b.Finish(fb::CreateWelcomeDirect(b, 5, "emulated", &devices));
  append_control(out, fb::ControlType::Welcome, b);
  return out;
}

std::vector<uint8_t> valid_frame_stream() {
  std::vector<uint8_t> out = valid_client_stream();
  const std::vector<uint8_t> args = {1, 2, 3, 4, 5, 6, 7, 8};
  append_frame(out, wire::make_header(wire::FrameKind::kCall, 0x1234, 1, 8, 16), args);
  out.insert(out.end(), 16, 0xEE);  // the call's bulk
  flatbuffers::FlatBufferBuilder b;
  const std::vector<uint8_t> image(64, 0x7F);
  const std::vector<flatbuffers::Offset<flatbuffers::String>> names = {b.CreateString("kernel")};
  const std::vector<uint8_t> key(32, 0x99);
  b.Finish(fb::CreateModuleLoadDirect(b, &key, &image, 3, &names, nullptr));
  append_control(out, fb::ControlType::ModuleLoad, b);
  append_frame(out, wire::control_header(fb::ControlType::Goodbye, 0), {});
  return out;
}

}  // namespace rgpu::fuzz
