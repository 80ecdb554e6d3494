// Frame header validation: every frame from a peer passes here before any byte is used.
#include "common/wire/frame.h"

#include <cstdio>
#include <string>

namespace rgpu::wire {

Status validate(const FrameHeader& h) {
  if (h.magic != kFrameMagic) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "%08x", h.magic);
    return RGPU_ERROR(kProtocol, std::string("bad frame magic 0x") + hex + " (not an rgpu peer?)");
  }
  if (h.kind < static_cast<uint16_t>(FrameKind::kControl) || h.kind > static_cast<uint16_t>(FrameKind::kLast))
    return RGPU_ERROR(kProtocol, "unknown frame kind " + std::to_string(h.kind));
  if (h.payload_len > kMaxPayload)
    return RGPU_ERROR(kProtocol, "frame payload of " + std::to_string(h.payload_len) + " bytes exceeds the limit of " +
                                     std::to_string(kMaxPayload));
  if (h.bulk_len > kMaxBulk)
    return RGPU_ERROR(kProtocol, "frame bulk of " + std::to_string(h.bulk_len) + " bytes exceeds the limit of " +
                                     std::to_string(kMaxBulk));
  return Status::ok();
}

}  // namespace rgpu::wire
