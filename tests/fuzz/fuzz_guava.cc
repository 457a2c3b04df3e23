// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for Guava's writeTo form (Filter::from_guava, lib/formats/guava.cc): any input
// either reads as a Guava filter, which then answers, round-trips through to_guava() byte for
// byte and takes inserts, or throws simdbloom::Error (kFormat); never a crash, a hang or a read
// past the input (ASan/UBSan). The first input byte picks the key type and whether trailing bytes
// are allowed (`consumed`). Built by cmake/fuzz.sh.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "simdbloom/simdbloom.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using simdbloom::Filter;
  using simdbloom::KeyType;
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  ++data;
  --size;
  const KeyType types[] = {KeyType::kInt64, KeyType::kInt32, KeyType::kBytes, KeyType::kNone};
  const KeyType type = types[mode & 3];
  // An exact-size copy: ASan flags any read past the input.
  std::unique_ptr<uint8_t[]> exact(new uint8_t[size == 0 ? 1 : size]);
  if (size != 0) std::memcpy(exact.get(), data, size);
  try {
    size_t consumed = 0;
    Filter f = Filter::from_guava(exact.get(), size, type, (mode & 4) != 0 ? &consumed : nullptr);
    const size_t used = (mode & 4) != 0 ? consumed : size;
    if (used > size) std::abort();
    const std::vector<uint8_t> back = f.to_guava();
    if (back.size() != used || std::memcmp(back.data(), exact.get(), used) != 0) std::abort();
    const uint64_t keys[] = {1, 2, 3, 0xFFFFFFFFull};
    uint8_t out[4];
    if (type != KeyType::kBytes) {
      f.contains(simdbloom::Keys(keys), out);
      f.insert(simdbloom::Keys(keys));
      f.contains(simdbloom::Keys(keys), out);
      for (int i = 0; i < 4; ++i) {
        if (out[i] != 1) std::abort();  // no false negative after an insert
      }
    } else {
      f.insert("fuzz");
      if (!f.contains("fuzz")) std::abort();
    }
  } catch (const simdbloom::Error&) {
  }
  return 0;
}
