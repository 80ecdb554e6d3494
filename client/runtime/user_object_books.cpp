// The books of CUDA user objects (user_object_books.h).
#include "client/runtime/user_object_books.h"

namespace rgpu::client {

uint64_t UserObjectBooks::create(cudaHostFn_t destroy, void* ptr, uint64_t refs) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = next_id_++;
  objects_[id] = {destroy, ptr, refs};
  return id;
}

bool UserObjectBooks::retain(uint64_t object, uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(object);
  if (it == objects_.end()) return false;
  it->second.refs += n;
  return true;
}

bool UserObjectBooks::release(uint64_t object, uint64_t n, Destructors* due) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(object);
  if (it == objects_.end() || it->second.refs < n) return false;
  drop(object, n, due);
  return true;
}

bool UserObjectBooks::graph_retain(uint64_t graph, uint64_t object, uint64_t n, bool move) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(object);
  if (it == objects_.end() || (move && it->second.refs < n)) return false;
  if (!move) it->second.refs += n;
  graphs_[graph][object] += n;
  return true;
}

bool UserObjectBooks::graph_release(uint64_t graph, uint64_t object, uint64_t n, Destructors* due) {
  std::lock_guard<std::mutex> lock(mu_);
  auto g = graphs_.find(graph);
  if (g == graphs_.end()) return false;
  auto owned = g->second.find(object);
  if (owned == g->second.end() || owned->second < n) return false;
  if ((owned->second -= n) == 0) g->second.erase(owned);
  if (g->second.empty()) graphs_.erase(g);
  drop(object, n, due);
  return true;
}

void UserObjectBooks::graph_destroyed(uint64_t graph, Destructors* due) {
  std::lock_guard<std::mutex> lock(mu_);
  auto g = graphs_.find(graph);
  if (g == graphs_.end()) return;
  References refs = std::move(g->second);
  graphs_.erase(g);
  for (const auto& [object, n] : refs) drop(object, n, due);
}

void UserObjectBooks::graph_copied(uint64_t to, uint64_t from) {
  std::lock_guard<std::mutex> lock(mu_);
  auto g = graphs_.find(from);
  if (g == graphs_.end()) return;
  References copies = g->second;  // `to` may be a new key: graphs_ may rehash
  add(graphs_[to], copies);
}

void UserObjectBooks::instantiated(uint64_t exec, uint64_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  auto g = graphs_.find(graph);
  if (g == graphs_.end()) return;
  References copies = g->second;
  add(execs_[exec].refs, copies);
}

RetiredReferences UserObjectBooks::exec_updated(uint64_t exec, uint64_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  RetiredReferences old;
  auto e = execs_.find(exec);
  if (e != execs_.end()) {
    old.refs = std::move(e->second.refs);
    old.streams.assign(e->second.streams.begin(), e->second.streams.end());
    e->second.refs.clear();
  }
  auto g = graphs_.find(graph);
  if (g != graphs_.end()) add(execs_[exec].refs, g->second);
  // Streams stay recorded: the new references too wait for work launched before the update.
  else if (e != execs_.end()) execs_.erase(e);
  return old;
}

void UserObjectBooks::launched(uint64_t exec, uint64_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  auto e = execs_.find(exec);
  if (e != execs_.end()) e->second.streams.insert(stream);
}

RetiredReferences UserObjectBooks::exec_destroyed(uint64_t exec) {
  std::lock_guard<std::mutex> lock(mu_);
  auto e = execs_.find(exec);
  if (e == execs_.end()) return {};
  RetiredReferences r{std::move(e->second.refs), {e->second.streams.begin(), e->second.streams.end()}};
  execs_.erase(e);
  return r;
}

void UserObjectBooks::release_references(const References& refs, Destructors* due) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [object, n] : refs) drop(object, n, due);
}

size_t UserObjectBooks::objects() const {
  std::lock_guard<std::mutex> lock(mu_);
  return objects_.size();
}

// Every reference a graph or executable graph owns is counted in its object, which therefore
// exists as long as it is owned: the lookups below always find it.
void UserObjectBooks::add(References& owner, const References& copies) {
  for (const auto& [object, n] : copies) {
    owner[object] += n;
    objects_.at(object).refs += n;
  }
}

void UserObjectBooks::drop(uint64_t object, uint64_t n, Destructors* due) {
  auto it = objects_.find(object);
  if ((it->second.refs -= n) > 0) return;
  due->push_back({it->second.destroy, it->second.ptr});
  objects_.erase(it);
}

}  // namespace rgpu::client
