// What the caller last set on a descriptor that lives on the server (an id: RNN, attention), kept
// on the client so its getter answers without a round trip. The setter stores after posting, the
// destroyer erases; a setter the server refuses later still reads back here (its failure is
// logged on the client, as every async call's is).
#pragma once

#include <mutex>
#include <unordered_map>

namespace rgpu::client::cudnn {

template <typename Desc, typename Record>
class DescriptorMirror {
 public:
  void store(Desc d, const Record& r) {
    std::lock_guard lock(mu_);
    records_[d] = r;
  }
  // False for a descriptor never set (or destroyed).
  bool find(Desc d, Record* out) const {
    std::lock_guard lock(mu_);
    auto it = records_.find(d);
    if (it == records_.end()) return false;
    *out = it->second;
    return true;
  }
  void erase(Desc d) {
    std::lock_guard lock(mu_);
    records_.erase(d);
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<Desc, Record> records_;
};

// The process's one mirror of `Desc` descriptors. Never destroyed: calls may come from exit handlers.
template <typename Desc, typename Record>
DescriptorMirror<Desc, Record>& mirror_of() {
  static auto* m = new DescriptorMirror<Desc, Record>;
  return *m;
}

// A getter's output: written where the caller passed a pointer (cuDNN skips null ones).
template <typename T>
void give(T* out, T value) {
  if (out) *out = value;
}

}  // namespace rgpu::client::cudnn
