// The books of CUDA user objects (client/runtime/user_object_books.h): reference counts, the
// references graphs and executable graphs own, and when a destructor falls due.
#include <catch2/catch.hpp>

#include "client/runtime/user_object_books.h"

using rgpu::client::Destructors;
using rgpu::client::RetiredReferences;
using rgpu::client::UserObjectBooks;

namespace {

void CUDART_CB count_destroyed(void* counter) { ++*static_cast<int*>(counter); }

constexpr uint64_t kGraph = 100, kClone = 101, kParent = 102, kOther = 103, kExec = 200;

}  // namespace

TEST_CASE("an object's destructor falls due when its count reaches zero, once") {
  UserObjectBooks b;
  int destroyed = 0;
  uint64_t o = b.create(count_destroyed, &destroyed, 2);
  CHECK(o != 0);
  CHECK(b.retain(o, 3));
  Destructors due;
  CHECK(b.release(o, 4, &due));
  CHECK(due.empty());
  CHECK_FALSE(b.release(o, 2, &due));  // only one left
  CHECK(b.release(o, 1, &due));
  REQUIRE(due.size() == 1);
  due[0].fn(due[0].ptr);
  CHECK(destroyed == 1);
  CHECK(b.objects() == 0);
  CHECK_FALSE(b.retain(o, 1));  // gone
  CHECK_FALSE(b.release(o, 1, &due));
}

TEST_CASE("a graph's references keep the object alive until the graph is destroyed") {
  UserObjectBooks b;
  int destroyed = 0;
  uint64_t o = b.create(count_destroyed, &destroyed, 1);
  CHECK(b.graph_retain(kGraph, o, 2, false));
  Destructors due;
  CHECK(b.release(o, 1, &due));
  CHECK(due.empty());
  CHECK_FALSE(b.graph_release(kGraph, o, 3, &due));  // the graph owns two
  CHECK_FALSE(b.graph_release(kOther, o, 1, &due));  // and no other graph any
  CHECK(b.graph_release(kGraph, o, 1, &due));
  CHECK(due.empty());
  b.graph_destroyed(kGraph, &due);
  CHECK(due.size() == 1);
}

TEST_CASE("a move passes the caller's references to the graph") {
  UserObjectBooks b;
  int destroyed = 0;
  uint64_t o = b.create(count_destroyed, &destroyed, 1);
  CHECK_FALSE(b.graph_retain(kGraph, o, 2, true));  // the caller holds only one
  CHECK(b.graph_retain(kGraph, o, 1, true));
  Destructors due;
  b.graph_destroyed(kGraph, &due);
  CHECK(due.size() == 1);
}

TEST_CASE("clones, child graph nodes and instantiation copy references, updates replace them") {
  UserObjectBooks b;
  int a_destroyed = 0, b_destroyed = 0;
  uint64_t first = b.create(count_destroyed, &a_destroyed, 1);
  uint64_t second = b.create(count_destroyed, &b_destroyed, 1);
  CHECK(b.graph_retain(kGraph, first, 1, true));
  CHECK(b.graph_retain(kOther, second, 1, true));
  b.graph_copied(kClone, kGraph);
  b.graph_copied(kParent, kGraph);
  b.instantiated(kExec, kGraph);
  Destructors due;
  b.graph_destroyed(kGraph, &due);
  b.graph_destroyed(kClone, &due);
  b.graph_destroyed(kParent, &due);
  CHECK(due.empty());  // the executable graph still owns one
  b.launched(kExec, 7);
  b.launched(kExec, 7);
  b.launched(kExec, 8);
  RetiredReferences old = b.exec_updated(kExec, kOther);
  CHECK(old.streams == std::vector<uint64_t>{7, 8});
  CHECK(old.refs.size() == 1);
  b.release_references(old.refs, &due);
  REQUIRE(due.size() == 1);
  CHECK(due[0].ptr == &a_destroyed);
  b.graph_destroyed(kOther, &due);
  CHECK(due.size() == 1);  // the executable graph owns the second now
  RetiredReferences last = b.exec_destroyed(kExec);
  CHECK(last.streams == std::vector<uint64_t>{7, 8});  // launched before the update: still waited for
  b.release_references(last.refs, &due);
  REQUIRE(due.size() == 2);
  CHECK(due[1].ptr == &b_destroyed);
  CHECK(b.objects() == 0);
}

TEST_CASE("an executable graph without references records nothing") {
  UserObjectBooks b;
  b.instantiated(kExec, kGraph);
  b.launched(kExec, 7);
  RetiredReferences r = b.exec_destroyed(kExec);
  CHECK(r.refs.empty());
  CHECK(r.streams.empty());
}
