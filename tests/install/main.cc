// SPDX-License-Identifier: Apache-2.0
// Consumer of the installed package (or of the source tree, tests/install/subdir): creates a
// filter, inserts and queries in bulk, catches the library's exception type.
#include <cstdio>
#include <simdbloom/simdbloom.hpp>
#include <simdbloom/spatial.hpp>
#include <vector>

int main() {
  simdbloom::Filter f = simdbloom::Filter::create(1000, 0.01);
  std::vector<uint64_t> keys(1000);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = i * 2654435761u;
  f.insert(keys);
  std::vector<uint8_t> out(keys.size());
  f.contains(keys, out.data());
  for (uint8_t o : out) {
    if (o != 1) return 1;
  }
  // The spatial filter's header is installed and its class exported.
  simdbloom::SpatialFilter areas = simdbloom::SpatialFilter::create(1000, 0.01, 2);
  areas.insert(1, keys);
  std::vector<uint16_t> labels(keys.size());
  areas.classify(keys, labels.data());
  for (uint16_t l : labels) {
    if (l != 1) return 4;
  }
  // An exception thrown inside the library is caught here by type (with the shared library: its
  // typeinfo is exported).
  try {
    simdbloom::Filter::create(1000, 2.0);
    return 2;
  } catch (const simdbloom::Error& e) {
    if (e.code() != simdbloom::ErrorCode::kInvalidArgument) return 3;
  }
  std::printf("consumer: simdbloom %s on %s, %llu bits, k=%u: ok\n", simdbloom::version(),
              simdbloom::active_target().c_str(), (unsigned long long)f.bit_count(),
              f.num_hashes());
  return 0;
}
