// A stack of at most N trivially copyable values in place: for a thread's state that a call may
// still use at exit. A thread's thread_local objects are destroyed before the program's statics,
// and a library's static destructor may still launch a kernel or push a context; a std::vector
// there is freed memory by then, this stack (trivially destructible) is still itself.
#pragma once

#include <cstddef>
#include <type_traits>

namespace rgpu {

template <typename T, size_t N>
class FixedStack {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  // False, and nothing pushed, when it holds N already.
  bool push(const T& v) {
    if (size_ == N) return false;
    items_[size_++] = v;
    return true;
  }
  // False when empty.
  bool pop(T* out) {
    if (size_ == 0) return false;
    *out = items_[--size_];
    return true;
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  static constexpr size_t capacity() { return N; }

 private:
  T items_[N];
  size_t size_ = 0;
};

}  // namespace rgpu
