// may_print: whether a module image can call device printf. Device printf writes into a buffer
// that the driver empties only inside synchronising calls, so a server that answers a wait
// without one (server/session/inline_wait.h) must know that no kernel of the session prints.
#include <algorithm>
#include <cstring>
#include <string_view>

#include "common/fatbin/fatbin.h"

namespace rgpu::fatbin {
namespace {

// A kernel that prints calls the device runtime's vprintf: its name is in the ELF's symbol
// table and in the PTX's extern declaration.
constexpr std::string_view kPrintCall = "vprintf";

bool names_print_call(std::span<const uint8_t> bytes) {
  return std::search(bytes.begin(), bytes.end(), kPrintCall.begin(), kPrintCall.end()) != bytes.end();
}

}  // namespace

bool may_print(std::span<const uint8_t> image) {
  uint32_t magic = 0;
  if (image.size() >= sizeof magic) std::memcpy(&magic, image.data(), sizeof magic);
  if (magic != kContainerMagic) return names_print_call(image);  // an ELF or PTX text
  Result<Container> c = parse_container(image);
  if (!c.is_ok()) return true;  // unreadable: assume it prints
  for (const Entry& e : c->entries) {
    if (e.compression == Compression::kNone) {
      if (names_print_call(e.payload)) return true;
      continue;
    }
    Result<std::vector<uint8_t>> inflated = decompress(e);
    if (!inflated.is_ok() || names_print_call(*inflated)) return true;
  }
  return false;
}

}  // namespace rgpu::fatbin
