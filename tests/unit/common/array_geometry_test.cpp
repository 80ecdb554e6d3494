// The arithmetic of CUDA arrays: element sizes, mip level extents, and how the legacy linear
// array copies split into rectangles.
#include <catch2/catch.hpp>

#include "common/wire/array_geometry.h"

using rgpu::LinearPiece;
using rgpu::LinearSide;
using rgpu::split_linear;

TEST_CASE("an element is the bytes of its channels, formats of partial bytes have none") {
  CHECK(rgpu::channel_bytes({32, 0, 0, 0, cudaChannelFormatKindFloat}) == 4);
  CHECK(rgpu::channel_bytes({8, 8, 8, 8, cudaChannelFormatKindUnsigned}) == 4);
  CHECK(rgpu::channel_bytes({16, 16, 0, 0, cudaChannelFormatKindSigned}) == 4);
  CHECK(rgpu::channel_bytes({32, 32, 32, 32, cudaChannelFormatKindFloat}) == 16);
  CHECK(rgpu::channel_bytes({10, 10, 10, 2, cudaChannelFormatKindUnsignedNormalized1010102}) == 4);
  CHECK(rgpu::channel_bytes({4, 0, 0, 0, cudaChannelFormatKindUnsigned}) == 0);
  CHECK(rgpu::channel_bytes({0, 0, 0, 0, cudaChannelFormatKindNone}) == 0);
  CHECK(rgpu::channel_bytes({-8, 0, 0, 0, cudaChannelFormatKindSigned}) == 0);
  CHECK(rgpu::channel_bytes({8, 0, 0, 0, cudaChannelFormatKindNV12}) == 0);
  CHECK(rgpu::channel_bytes({8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed1}) == 0);
}

TEST_CASE("mip levels halve each present dimension, never below one") {
  cudaExtent e{40, 24, 0};
  auto l2 = rgpu::mip_level_extent(e, 2);
  CHECK((l2.width == 10 && l2.height == 6 && l2.depth == 0));
  auto l5 = rgpu::mip_level_extent(e, 5);
  CHECK((l5.width == 1 && l5.height == 1 && l5.depth == 0));
  CHECK(rgpu::mip_level_extent(e, 200).width == 1);
  CHECK(rgpu::mip_level_count(e) == 6);  // 40 -> 20 -> 10 -> 5 -> 2 -> 1
  CHECK(rgpu::mip_level_count({1, 0, 0}) == 1);
  CHECK(rgpu::mip_level_count({7, 64, 3}) == 7);
}

TEST_CASE("a linear range into an array: a partial row, whole rows at once, a partial row") {
  // Rows of 100 bytes; 350 bytes from byte 30 of row 2: the row's last 70, two whole rows, 80 more.
  auto p = split_linear(LinearSide{100, 30, 2}, LinearSide{}, 350);
  REQUIRE(p.size() == 3);
  CHECK((p[0].offset == 0 && p[0].width == 70 && p[0].height == 1 && p[0].a_x == 30 && p[0].a_y == 2));
  CHECK((p[1].offset == 70 && p[1].width == 100 && p[1].height == 2 && p[1].a_x == 0 && p[1].a_y == 3));
  CHECK((p[2].offset == 270 && p[2].width == 80 && p[2].height == 1 && p[2].a_x == 0 && p[2].a_y == 5));
}

TEST_CASE("a range inside one row is one piece, a position past the row is refused") {
  auto p = split_linear(LinearSide{}, LinearSide{64, 8, 1}, 40);
  REQUIRE(p.size() == 1);
  CHECK((p[0].width == 40 && p[0].b_x == 8 && p[0].b_y == 1));
  CHECK(split_linear(LinearSide{64, 64, 0}, LinearSide{}, 4).empty());
}

TEST_CASE("array to array with different offsets goes piece by piece, covering every byte once") {
  LinearSide a{48, 16, 0}, b{32, 8, 3};
  auto p = split_linear(a, b, 200);
  size_t covered = 0;
  for (const LinearPiece& piece : p) {
    CHECK(piece.offset == covered);
    CHECK(piece.height == 1);
    CHECK(piece.a_x + piece.width <= 48);
    CHECK(piece.b_x + piece.width <= 32);
    covered += piece.width;
  }
  CHECK(covered == 200);
  // Aligned arrays of one width copy whole rows at once.
  auto whole = split_linear(LinearSide{32, 0, 0}, LinearSide{32, 0, 5}, 32 * 4);
  REQUIRE(whole.size() == 1);
  CHECK((whole[0].height == 4 && whole[0].b_y == 5));
}
