// A library's answers kept per distinct question, for the generated client stubs of queries whose
// spec says `cached: true` (cuSPARSE's buffer sizes): the first asking waits for the server, the
// same question again is answered here.
//
// A question is the call's id and its encoded arguments, with each described handle (the spec's
// `answers:`) standing for its description rather than its id: a descriptor made afresh with the
// same arguments asks the same question as the one before it (PyTorch makes new descriptors for
// every sparse product). A handle's description is a hash of the arguments of the call that made it,
// folded with those of every later call that takes it through a mutable type (setters, and
// computations, which may change it: cusparseSpGEMM_compute writes C's nnz); read-only types
// (cuSPARSE's Const descriptors) leave it as it is. A question naming a handle with no description
// (unknown, or past the table's bound) is not cached. A failed query keeps nothing.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace rgpu::gen {

class AnswerCache {
 public:
  // The thread's question and answer buffers: once warm, asking again allocates nothing.
  static std::string& question_buffer() {
    thread_local std::string q;
    return q;
  }
  static std::vector<uint8_t>& answer_buffer() {
    thread_local std::vector<uint8_t> a;
    return a;
  }

  // The call `fn` made handle `id`; its arguments are `args`, the id's 8 bytes at `id_at`.
  void describe(uint64_t id, uint32_t fn, std::span<const uint8_t> args, size_t id_at) {
    if (id == 0 || id_at + sizeof id > args.size()) return;
    uint64_t h = mix(kSeed, &fn, sizeof fn);
    h = mix(h, args.data(), id_at);
    h = mix(h, args.data() + id_at + sizeof id, args.size() - id_at - sizeof id);
    std::lock_guard lock(mu_);
    if (descriptions_.size() < kMaxDescribed || descriptions_.count(id)) descriptions_[id] = h;
  }
  // The call `fn` took handle `id` through a mutable type: what it did is part of the description.
  void update(uint64_t id, uint32_t fn, std::span<const uint8_t> args) {
    std::lock_guard lock(mu_);
    auto it = descriptions_.find(id);
    if (it == descriptions_.end()) return;
    it->second = mix(mix(it->second, &fn, sizeof fn), args.data(), args.size());
  }
  void forget(uint64_t id) {
    std::lock_guard lock(mu_);
    descriptions_.erase(id);
  }

  // A setter changed what every answer may be (a handle's mode): they are asked again.
  void forget_answers() {
    std::lock_guard lock(mu_);
    answers_.clear();
  }

  // Builds the question of call `fn` into `q`, the 8-byte handle ids at `described_at` (offsets in
  // `args`) replaced by their descriptions; false when one has none.
  bool question(uint32_t fn, std::span<const uint8_t> args, std::initializer_list<size_t> described_at, std::string& q) {
    q.assign(reinterpret_cast<const char*>(&fn), sizeof fn);
    q.append(reinterpret_cast<const char*>(args.data()), args.size());
    std::lock_guard lock(mu_);
    for (size_t at : described_at) {
      uint64_t id = 0;
      if (at + sizeof id > args.size()) return false;
      std::memcpy(&id, args.data() + at, sizeof id);
      auto it = descriptions_.find(id);
      if (it == descriptions_.end()) return false;
      std::memcpy(q.data() + sizeof fn + at, &it->second, sizeof it->second);
    }
    return true;
  }
  // The reply kept for `q` (its status, then its outputs), copied into `out`; false when none.
  bool find(const std::string& q, std::vector<uint8_t>& out) {
    std::lock_guard lock(mu_);
    auto it = answers_.find(q);
    if (it == answers_.end()) return false;
    out.assign(it->second.begin(), it->second.end());
    return true;
  }
  void store(const std::string& q, std::span<const uint8_t> reply) {
    std::lock_guard lock(mu_);
    if (answers_.size() < kMaxAnswers) answers_.try_emplace(q, reply.begin(), reply.end());
  }

 private:
  // FNV-1a, 64 bits: descriptions are compared, never trusted across processes.
  static constexpr uint64_t kSeed = 14695981039346656037ull;
  static uint64_t mix(uint64_t h, const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
  }
  // Bounds, so that a program that never destroys its descriptors or asks ever new questions
  // costs a bounded table: past them, questions go to the server as before.
  static constexpr size_t kMaxDescribed = size_t{1} << 16;
  static constexpr size_t kMaxAnswers = size_t{1} << 12;

  std::mutex mu_;
  std::unordered_map<uint64_t, uint64_t> descriptions_;
  std::unordered_map<std::string, std::vector<uint8_t>> answers_;
};

}  // namespace rgpu::gen
