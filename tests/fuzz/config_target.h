// rgpud's configuration file (server/pool/pool_config.h): any text through parse_config.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace rgpu::fuzz {

// Empty when the text was refused with a message that names the file, or accepted as a
// configuration that keeps the promises pool_config.h makes (bounds, units, unique tokens).
std::string config_violation(std::span<const uint8_t> text);

}  // namespace rgpu::fuzz
