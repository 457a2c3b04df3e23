// SPDX-License-Identifier: Apache-2.0
// split_block256's false-positive model and statistics (lib/FORMAT.md).
#include "kernels/fpr_terms.h"

#include <cmath>

#include "kernels/split_block256/spec.h"

namespace simdbloom {
namespace detail {
namespace {

// One bit in each of 8 u32 words: prod_w (1 - (31/32)^L) expanded.
std::vector<Term> Terms() {
  std::vector<Term> terms;
  double binom = 1;  // C(8, t)
  for (int t = 0; t <= 8; ++t) {
    terms.push_back(Term{(t % 2 ? -binom : binom), 1 - std::pow(31.0 / 32.0, t)});
    binom = binom * (8 - t) / (t + 1);
  }
  return terms;
}

}  // namespace

double SplitBlock256Spec::ModelFpr(uint32_t, double n, uint64_t num_blocks) {
  static const auto* terms = new std::vector<Term>(Terms());
  return EvalTerms(*terms, n / static_cast<double>(num_blocks));
}

double SplitBlock256Spec::DistinctBitsPerKey(uint32_t, double) { return 8; }

double SplitBlock256Spec::ExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t) {
  double sum = 0;
  for (uint64_t b = 0; b < num_blocks; ++b) {
    double p = 1;
    for (int i = 0; i < 4; ++i) {  // 8 u32 words = 4 u64 words; popcount each half
      const uint64_t w = WordAt(bytes, 4 * b + i);
      p *= Popcount64(w & 0xFFFFFFFFu) / 32.0 * (Popcount64(w >> 32) / 32.0);
    }
    sum += p;
  }
  return sum / static_cast<double>(num_blocks);
}

}  // namespace detail
}  // namespace simdbloom
