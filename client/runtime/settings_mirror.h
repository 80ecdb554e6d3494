// The client's mirror of a library's handle settings (cuBLAS, cuSPARSE): setters update it before
// they are sent without waiting, getters answer from it, and the generated compute stubs read the
// pointer mode from it (whether alpha and beta travel as values or as device addresses). A map
// under a reader-writer lock: the compute stubs only read it.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>

namespace rgpu::client {

// Status: the library's status type, with what answers success, an unknown handle and a null output.
template <typename Handle, typename Settings, typename Status>
class SettingsMirror {
 public:
  struct Statuses {
    Status success, unknown_handle, invalid_value;
  };
  explicit SettingsMirror(Statuses statuses) : statuses_(statuses) {}

  // A new handle starts with the library's defaults (Settings{}).
  void add(Handle handle) {
    std::unique_lock lock(mu_);
    handles_[handle] = Settings{};
  }
  // False when the handle is unknown.
  bool remove(Handle handle) {
    std::unique_lock lock(mu_);
    return handles_.erase(handle) != 0;
  }
  // A copy of the settings, or nothing when the handle is unknown.
  std::optional<Settings> get(Handle handle) const {
    std::shared_lock lock(mu_);
    auto it = handles_.find(handle);
    if (it == handles_.end()) return std::nullopt;
    return it->second;
  }
  // Applies `change` to a known handle's settings; false when the handle is unknown.
  bool update(Handle handle, const std::function<void(Settings&)>& change) {
    std::unique_lock lock(mu_);
    auto it = handles_.find(handle);
    if (it == handles_.end()) return false;
    change(it->second);
    return true;
  }
  // What `test` says of a known handle's settings, `otherwise` for an unknown one.
  template <typename Test>
  bool holds(Handle handle, bool otherwise, Test test) const {
    std::shared_lock lock(mu_);
    auto it = handles_.find(handle);
    return it == handles_.end() ? otherwise : test(it->second);
  }

  // A setter: mirrors the change of a known handle, then forwards it (async).
  template <typename Forward>
  Status set(Handle handle, const std::function<void(Settings&)>& change, Forward forward) {
    if (!update(handle, change)) return statuses_.unknown_handle;
    return forward();
  }
  // A getter: reads a known handle's setting into *out.
  template <typename T, typename Read>
  Status read(Handle handle, T* out, Read read) const {
    if (!out) return statuses_.invalid_value;
    std::optional<Settings> s = get(handle);
    if (!s) return statuses_.unknown_handle;
    *out = read(*s);
    return statuses_.success;
  }

 private:
  const Statuses statuses_;
  mutable std::shared_mutex mu_;
  std::unordered_map<Handle, Settings> handles_;
};

}  // namespace rgpu::client
