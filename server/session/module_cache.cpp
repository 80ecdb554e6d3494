// The module cache (see module_cache.h).
#include "server/session/module_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "common/config.h"
#include "common/log.h"

namespace rgpu::server {
namespace {

const Tunable kCacheDir{"RGPU_MODULE_CACHE", "/var/tmp/rgpu-modules",
                        "rgpud's on-disk cache of uploaded module images (empty: no cache)"};

// A module image larger than this is not read back from the cache (the wire limit for a payload).
constexpr size_t kMaxImage = 64u << 20;

}  // namespace

ModuleCache::ModuleCache(std::string dir) : dir_(std::move(dir)) {
  if (!dir_.empty() && mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) {
    RGPU_LOG_WARN("module cache %s unusable (%s): modules are uploaded by every client", dir_.c_str(),
                  std::strerror(errno));
    dir_.clear();
  }
}

ModuleCache& ModuleCache::get() {
  static ModuleCache* cache = new ModuleCache(kCacheDir.get());
  return *cache;
}

std::string ModuleCache::path(const fatbin::ContentHash& key) const { return dir_ + "/" + fatbin::to_hex(key) + ".bin"; }

std::optional<std::vector<uint8_t>> ModuleCache::find(const fatbin::ContentHash& key) const {
  if (dir_.empty()) return std::nullopt;
  std::ifstream in(path(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<uint8_t> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A damaged entry (disk trouble, a hand edit) is a miss, never a wrong module.
  if (image.size() > kMaxImage || fatbin::content_hash(image) != key) return std::nullopt;
  return image;
}

void ModuleCache::store(const fatbin::ContentHash& key, std::span<const uint8_t> image) const {
  if (dir_.empty() || access(path(key).c_str(), F_OK) == 0) return;
  std::string tmp = path(key) + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
    // Closed here, so that a failed flush counts: a small image sits in the stream's buffer until
    // then, and on a full disk would become an empty entry that a later store never replaces.
    out.close();
    if (!out) {
      unlink(tmp.c_str());
      return;
    }
  }
  if (rename(tmp.c_str(), path(key).c_str()) != 0) unlink(tmp.c_str());
}

}  // namespace rgpu::server
