// The session's handle table: client ids to real handles, per kind; CUDA's reserved stream values
// pass through.
#include <catch2/catch.hpp>

#include "server/session/handle_table.h"

using rgpu::server::HandleKind;
using rgpu::server::HandleTable;

TEST_CASE("handles resolve per kind, builtins pass through (stream specials only as streams), unknown ids fail") {
  HandleTable t;
  int stream_obj = 0, event_obj = 0;
  t.bind(HandleKind::kStream, 0x100, &stream_obj);
  t.bind(HandleKind::kEvent, 0x100, &event_obj);
  void* p = nullptr;
  REQUIRE(t.resolve(HandleKind::kStream, 0x100, &p));
  CHECK(p == &stream_obj);
  REQUIRE(t.resolve(HandleKind::kEvent, 0x100, &p));
  CHECK(p == &event_obj);
  CHECK_FALSE(t.resolve(HandleKind::kGraph, 0x100, &p));
  CHECK_FALSE(t.resolve(HandleKind::kStream, 0x110, &p));
  for (uint64_t builtin : {0, 1, 2}) {
    REQUIRE(t.resolve(HandleKind::kStream, builtin, &p));
    CHECK(reinterpret_cast<uint64_t>(p) == builtin);
  }
  // Null passes for every kind (the library checks it); the stream specials 1 and 2 are not handles
  // of any other kind: as a cuBLAS or cuDNN handle they would be dereferenced.
  for (HandleKind kind : {HandleKind::kEvent, HandleKind::kCublas, HandleKind::kCudnn}) {
    REQUIRE(t.resolve(kind, 0, &p));
    CHECK(p == nullptr);
    CHECK_FALSE(t.resolve(kind, 1, &p));
    CHECK_FALSE(t.resolve(kind, 2, &p));
  }
  t.unbind(HandleKind::kStream, 0x100);
  CHECK_FALSE(t.resolve(HandleKind::kStream, 0x100, &p));
  CHECK(t.size() == 1);
}

// A getter of an existing object (a device's memory pool) answers with the id it already has.
TEST_CASE("handle table finds the id a handle is bound to, by kind") {
  HandleTable t;
  int pool_obj = 0, other = 0;
  t.bind(HandleKind::kMemPool, 0x200, &pool_obj);
  t.bind(HandleKind::kStream, 0x210, &other);
  CHECK(t.find_id(HandleKind::kMemPool, &pool_obj) == 0x200);
  CHECK(t.find_id(HandleKind::kMemPool, &other) == 0);   // bound, but as another kind
  CHECK(t.find_id(HandleKind::kStream, &pool_obj) == 0);
  t.unbind(HandleKind::kMemPool, 0x200);
  CHECK(t.find_id(HandleKind::kMemPool, &pool_obj) == 0);
}

TEST_CASE("id_for names a backend-made handle by the id it is bound under, else by its address, bound once") {
  HandleTable t;
  int added = 0, made = 0;
  t.bind(HandleKind::kGraphNode, 0x200, &added);
  CHECK(t.id_for(HandleKind::kGraphNode, &added) == 0x200);
  // Bound under another kind only: a new id of this kind.
  t.bind(HandleKind::kEvent, 0x300, &made);
  uint64_t id = t.id_for(HandleKind::kGraphNode, &made);
  CHECK(id == reinterpret_cast<uint64_t>(&made));
  void* p = nullptr;
  REQUIRE(t.resolve(HandleKind::kGraphNode, id, &p));
  CHECK(p == &made);
  CHECK(t.id_for(HandleKind::kGraphNode, &made) == id);
  CHECK(t.size() == 3);
  CHECK(t.id_for(HandleKind::kGraphNode, nullptr) == 0);
  CHECK(t.size() == 3);
}
