// parse_wrapper: from the registration wrapper in a host image to its containers, each read only
// as far as the caller's `readable` bound allows.
#include <cstdio>
#include <string>

#include "common/fatbin/byte_reader.h"
#include "common/fatbin/fatbin.h"
#include "common/fatbin/layout.h"

namespace rgpu::fatbin {
namespace {

std::string hex(const void* p) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", p);
  return text;
}

// The bytes at `p` that `readable` vouches for (none for a null pointer).
std::span<const uint8_t> readable_span(const void* p, size_t (*readable)(const void* p)) {
  if (p == nullptr) return {};
  return {static_cast<const uint8_t*>(p), readable(p)};
}

Result<Container> parse_at(const void* p, size_t (*readable)(const void* p)) {
  auto bytes = readable_span(p, readable);
  if (bytes.empty())
    return RGPU_ERROR(kInvalidArgument, "fatbin container pointer " + hex(p) + " is not readable");
  RGPU_ASSIGN_OR_RETURN(Container container, parse_container(bytes));
  return container;
}

}  // namespace

Result<std::vector<Container>> parse_wrapper(const void* wrapper,
                                             size_t (*readable)(const void* p)) {
  using namespace detail;
  auto bytes = readable_span(wrapper, readable);
  uint32_t magic = 0;
  uint32_t version = 0;
  const void* data = nullptr;
  const void* prelinked = nullptr;
  if (!read_le(bytes, 0, &magic) || !read_le(bytes, 4, &version) || !read_le(bytes, 8, &data) ||
      !read_le(bytes, 16, &prelinked))
    return RGPU_ERROR(kInvalidArgument, "fatbin wrapper at " + hex(wrapper) + " is not readable");
  if (magic != kWrapperMagic)
    return RGPU_ERROR(kInvalidArgument, "not a fatbin wrapper: magic " + std::to_string(magic));
  if (version != kWrapperVersionPlain && version != kWrapperVersionLinked)
    return RGPU_ERROR(kNotSupported,
                      "fatbin wrapper version " + std::to_string(version) + " (1 and 2 are known)");

  std::vector<Container> containers;
  if (version == kWrapperVersionPlain || data != nullptr) {
    RGPU_ASSIGN_OR_RETURN(Container main, parse_at(data, readable));
    containers.push_back(main);
  }
  if (version == kWrapperVersionPlain) return containers;

  // Version 2: `prelinked` is a NULL-terminated array of the relocatable containers that the
  // device link combined into `data`.
  auto list = readable_span(prelinked, readable);
  for (uint64_t offset = 0;; offset += sizeof(void*)) {
    const void* element = nullptr;
    if (!read_le(list, offset, &element))
      return RGPU_ERROR(kInvalidArgument, "prelinked fatbin list at " + hex(prelinked) +
                                              " is unreadable or not NULL-terminated");
    if (element == nullptr) break;
    RGPU_ASSIGN_OR_RETURN(Container container, parse_at(element, readable));
    containers.push_back(container);
  }
  return containers;
}

}  // namespace rgpu::fatbin
