// rgpud's on-disk cache of module images, keyed by SHA-256 and shared by every session of the
// host: a client whose module the server already holds sends only the key (a framework's fatbins
// run to hundreds of megabytes). Entries are written once, atomically, and only after the
// server has checked that the image hashes to its key.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/fatbin/fatbin.h"

namespace rgpu::server {

class ModuleCache {
 public:
  // The cache at RGPU_MODULE_CACHE (created if missing); disabled, with a warning, if unusable.
  static ModuleCache& get();
  // A cache in `dir` (created if missing); empty or unusable: disabled.
  explicit ModuleCache(std::string dir);

  std::optional<std::vector<uint8_t>> find(const fatbin::ContentHash& key) const;
  void store(const fatbin::ContentHash& key, std::span<const uint8_t> image) const;

 private:
  std::string path(const fatbin::ContentHash& key) const;
  std::string dir_;  // empty: disabled
};

}  // namespace rgpu::server
