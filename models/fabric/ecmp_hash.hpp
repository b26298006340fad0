// Static ECMP hashing of flows onto a leaf's uplinks, and the balls-in-bins figures it is checked by.
//
// Under `routing: ecmp_hash` (FABRIC-SHARING.md §3.7) a connection between two GPUs on different leaves
// opens s = collective_channels × qps_per_connection subflows, each carrying 1/s of the connection's
// bytes. Subflow i runs on plane i mod P and, in that plane, is pinned to one live uplink of the source
// leaf and one live downlink of the destination leaf by a seeded hash of (source, destination, i):
//   uplink = the (h mod u)-th live uplink of the plane, h = splitmix64(seed ^ mix(src, dst, i))
// (the downlink from an independent hash of the same key). Every uplink is its own link of one port's
// capacity, so subflows hashed together share it: two subflows on one uplink of two get half its rate
// each, and a collective moves at the pace of its most collided subflow. More subflows per connection
// spread the load and tend to `ideal` (the bundle shared evenly).
// Balls in bins (Raab and Steger, "Balls into Bins — A Simple and Tight Analysis", RANDOM 1998): with
// n subflows on m uplinks, P(max load ≤ k) = n!/m^n · [x^n] (Σ_{j≤k} x^j/j!)^m; the expected maximum
// load is Σ_{k≥1} P(max load ≥ k), about ln n / ln ln n for n = m. A share (1 − 1/m)^n of the uplinks
// stays idle (→ 1/e for n = m).
#pragma once

#include <cstdint>

namespace dcsim::fabric {

/// The hash of subflow `subflow` of the connection src → dst under `seed`; `salt` separates the uplink
/// choice (0) from the downlink choice (1).
std::uint64_t ecmp_hash(std::uint64_t seed, int src, int dst, int subflow, int salt);

/// E[max load] of `balls` (≤ 150) thrown uniformly into `bins` (exact, by the generating function above).
double expected_max_load(int balls, int bins);

} // namespace dcsim::fabric
