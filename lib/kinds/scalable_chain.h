// SPDX-License-Identifier: Apache-2.0
// Internal: the rules of a scalable chain's parameters and stages, which making a chain
// (lib/kinds/scalable.cc) and loading one (lib/formats/scalable.cc: a file is checked against the
// same rules) share.
#ifndef SIMDBLOOM_LIB_KINDS_SCALABLE_CHAIN_H_
#define SIMDBLOOM_LIB_KINDS_SCALABLE_CHAIN_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "simdbloom/scalable.hpp"

namespace simdbloom {
namespace detail {
namespace scalable {

// Why (initial, fpp, growth, tightening, layout) cannot make a chain; empty if they can.
std::string ParameterProblem(uint64_t initial, double fpp, double growth, double tightening,
                             Layout layout);
// The capacity after `cap`: cap * growth rounded up (exact IEEE arithmetic, the same on every
// machine), or 0 beyond 2^62.
uint64_t NextCapacity(uint64_t cap, double growth);
// Stage i's share of fpp: fpp * (1 - r) * r^i, one multiplication per stage (no pow: the same on
// every machine).
double StageFpp(double fpp, double r, size_t i);

}  // namespace scalable
}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_KINDS_SCALABLE_CHAIN_H_
