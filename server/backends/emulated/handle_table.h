// The handles an emulated library mints (cuBLAS, cuBLASLt, cuFFT): a pointer handle is the address
// of the state it owns, an integer one (a cuFFT plan) the next number, so live handles are
// distinct, and the table validates one before any use: an unknown handle is refused, never
// dereferenced.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_map>

namespace rgpu::server::emulated {

template <typename Handle, typename State>
class HandleTable {
 public:
  // A new handle; its state starts value-initialized.
  Handle create() {
    auto state = std::make_unique<State>();
    std::lock_guard lock(mu_);
    Handle handle;
    if constexpr (std::is_pointer_v<Handle>) {
      handle = reinterpret_cast<Handle>(state.get());
    } else {
      handle = ++last_;
    }
    states_.emplace(handle, std::move(state));
    return handle;
  }

  // False when the handle is unknown.
  bool destroy(Handle handle) {
    std::lock_guard lock(mu_);
    return states_.erase(handle) != 0;
  }

  // A copy of the handle's state, or nothing when the handle is unknown.
  std::optional<State> get(Handle handle) {
    std::lock_guard lock(mu_);
    auto it = states_.find(handle);
    if (it == states_.end()) return std::nullopt;
    return *it->second;
  }

  // Applies `change` to a known handle's state under the table's lock; false when it is unknown.
  template <typename F>
  bool update(Handle handle, F change) {
    std::lock_guard lock(mu_);
    auto it = states_.find(handle);
    if (it == states_.end()) return false;
    change(*it->second);
    return true;
  }

 private:
  std::mutex mu_;
  std::unordered_map<Handle, std::unique_ptr<State>> states_;
  Handle last_{};  // integer handles only: the last one minted
};

}  // namespace rgpu::server::emulated
