// A managed allocation's hints (client/runtime/managed_hints.h): advice and prefetch locations kept
// page by page as runs, and the range attributes CUDA derives from them.
#include <catch2/catch.hpp>

#include "client/runtime/managed_hints.h"

using rgpu::client::ManagedHints;
using rgpu::client::PageHints;

namespace {

constexpr size_t kPage = ManagedHints::kPage;
constexpr cudaMemLocation kDevice1{cudaMemLocationTypeDevice, 1};
constexpr cudaMemLocation kHost{cudaMemLocationTypeHost, 0};

int int_attribute(const ManagedHints& h, cudaMemRangeAttribute a, size_t begin, size_t end) {
  int v = -100;
  REQUIRE(h.attribute(a, &v, sizeof v, begin, end) == cudaSuccess);
  return v;
}

}  // namespace

TEST_CASE("advice on part of an allocation applies to the pages it touches") {
  ManagedHints h(10 * kPage);
  // Bytes 100..kPage+1 touch pages 0 and 1.
  h.update(100, kPage + 2, [](PageHints& p) { p.read_mostly = true; });
  CHECK(int_attribute(h, cudaMemRangeAttributeReadMostly, 0, 2 * kPage) == 1);
  CHECK(int_attribute(h, cudaMemRangeAttributeReadMostly, kPage + 10, kPage + 20) == 1);
  CHECK(int_attribute(h, cudaMemRangeAttributeReadMostly, 0, 2 * kPage + 1) == 0);
  CHECK(int_attribute(h, cudaMemRangeAttributeReadMostly, 5 * kPage, 6 * kPage) == 0);
}

TEST_CASE("a location is answered only when every page has the same one") {
  ManagedHints h(4 * kPage);
  CHECK(int_attribute(h, cudaMemRangeAttributePreferredLocation, 0, 4 * kPage) == cudaInvalidDeviceId);
  h.update(0, 4 * kPage, [](PageHints& p) { p.preferred = kDevice1; });
  CHECK(int_attribute(h, cudaMemRangeAttributePreferredLocation, 0, 4 * kPage) == 1);
  CHECK(int_attribute(h, cudaMemRangeAttributePreferredLocationId, 0, 4 * kPage) == 1);
  h.update(3 * kPage, 4 * kPage, [](PageHints& p) { p.preferred = kHost; });
  CHECK(int_attribute(h, cudaMemRangeAttributePreferredLocation, 0, 4 * kPage) == cudaInvalidDeviceId);
  CHECK(int_attribute(h, cudaMemRangeAttributePreferredLocation, 3 * kPage, 4 * kPage) == cudaCpuDeviceId);
  cudaMemLocationType type{};
  REQUIRE(h.attribute(cudaMemRangeAttributePreferredLocationType, &type, sizeof type, 0, 4 * kPage) == cudaSuccess);
  CHECK(type == cudaMemLocationTypeInvalid);
  REQUIRE(h.attribute(cudaMemRangeAttributePreferredLocationType, &type, sizeof type, 0, kPage) == cudaSuccess);
  CHECK(type == cudaMemLocationTypeDevice);
  h.update(kPage, 2 * kPage, [](PageHints& p) { p.last_prefetch = kHost; });
  CHECK(int_attribute(h, cudaMemRangeAttributeLastPrefetchLocation, kPage, 2 * kPage) == cudaCpuDeviceId);
  CHECK(int_attribute(h, cudaMemRangeAttributeLastPrefetchLocation, 0, 2 * kPage) == cudaInvalidDeviceId);
}

TEST_CASE("accessors are those every page names, the rest of the answer says no device") {
  ManagedHints h(2 * kPage);
  h.update(0, 2 * kPage, [](PageHints& p) { p.accessed_by |= 1u << 0 | 1u << 2; });
  h.update(0, kPage, [](PageHints& p) { p.accessed_by |= uint64_t{1} << PageHints::kHostBit; });
  int out[4] = {};
  REQUIRE(h.attribute(cudaMemRangeAttributeAccessedBy, out, sizeof out, 0, 2 * kPage) == cudaSuccess);
  CHECK((out[0] == 0 && out[1] == 2 && out[2] == cudaInvalidDeviceId && out[3] == cudaInvalidDeviceId));
  REQUIRE(h.attribute(cudaMemRangeAttributeAccessedBy, out, sizeof out, 0, kPage) == cudaSuccess);
  CHECK((out[0] == 0 && out[1] == 2 && out[2] == cudaCpuDeviceId && out[3] == cudaInvalidDeviceId));
  // A smaller answer holds as many as fit.
  REQUIRE(h.attribute(cudaMemRangeAttributeAccessedBy, out, sizeof(int), 0, kPage) == cudaSuccess);
  CHECK(out[0] == 0);
}

TEST_CASE("sizes an attribute does not take are refused") {
  ManagedHints h(kPage);
  int v = 0;
  CHECK(h.attribute(cudaMemRangeAttributeReadMostly, &v, 8, 0, kPage) == cudaErrorInvalidValue);
  CHECK(h.attribute(cudaMemRangeAttributeAccessedBy, &v, 0, 0, kPage) == cudaErrorInvalidValue);
  CHECK(h.attribute(cudaMemRangeAttributeAccessedBy, &v, 6, 0, kPage) == cudaErrorInvalidValue);
  CHECK(h.attribute(static_cast<cudaMemRangeAttribute>(99), &v, 4, 0, kPage) == cudaErrorInvalidValue);
  CHECK(h.attribute(cudaMemRangeAttributeReadMostly, nullptr, 4, 0, kPage) == cudaErrorInvalidValue);
}

TEST_CASE("runs that become equal join, so repeated advice costs no memory") {
  ManagedHints h(1000 * kPage);
  for (size_t page = 0; page < 1000; page += 2)
    h.update(page * kPage, (page + 1) * kPage, [](PageHints& p) { p.read_mostly = true; });
  CHECK(h.runs() == 1000);
  h.update(0, 1000 * kPage, [](PageHints& p) { p.read_mostly = false; });
  CHECK(h.runs() == 1);
  h.update(10 * kPage, 20 * kPage, [](PageHints& p) { p.preferred = kDevice1; });
  h.update(20 * kPage, 30 * kPage, [](PageHints& p) { p.preferred = kDevice1; });
  CHECK(h.runs() == 3);
  CHECK(int_attribute(h, cudaMemRangeAttributePreferredLocation, 10 * kPage, 30 * kPage) == 1);
}

TEST_CASE("locations take a canonical form") {
  cudaMemLocation host{cudaMemLocationTypeHost, 42};
  REQUIRE(rgpu::client::canonical_location(host));
  CHECK(host.id == 0);
  cudaMemLocation negative{cudaMemLocationTypeDevice, -1};
  CHECK_FALSE(rgpu::client::canonical_location(negative));
  cudaMemLocation invalid{cudaMemLocationTypeInvalid, 0};
  CHECK_FALSE(rgpu::client::canonical_location(invalid));
}
