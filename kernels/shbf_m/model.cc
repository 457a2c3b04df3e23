// SPDX-License-Identifier: Apache-2.0
// shifting's false-positive model and statistics (lib/FORMAT.md): the paper's ShBF_M analysis
// (k/2 positions, each with a second bit at a per-key offset, whose bits are not independent:
// two keys with the same offset set the same pair) carried over to the blocked geometry, where the
// block's load is Poisson and the pairs live in words of one 512-bit block.
#include <cmath>

#include "kernels/fpr_terms.h"
#include "kernels/shbf_m/spec.h"

namespace simdbloom {
namespace detail {
namespace {

// Bits a key has in word w of its block when its first word is v0: 2 for the ceil(k/2) - [k odd]
// full pairs, 1 for the odd single, else 0.
int BitsInWord(uint32_t k, int v0, int w) {
  const int rel = (w - v0) & 7, pairs = static_cast<int>(k / 2);
  return rel < pairs ? 2 : (rel == pairs && (k & 1) ? 1 : 0);
}

// Probability that one key with c bits in a word leaves s chosen query bits of that word clear.
// With c = s = 2 the query's bits are its pair {x, x + o_q}; the key's pair (b, b + o) covers
// {x, x + o_q, x - o, x + o_q - o}: 3 bits when o = ±o_q (2 when o = o_q = 32), else 4.
double Avoid(int c, int s, bool match, bool half) {
  if (c == 0 || s == 0) return 1;
  if (c == 1) return (64.0 - s) / 64;
  if (s == 1) return 62.0 / 64;
  return match ? (half ? 62.0 : 61.0) / 64 : 60.0 / 64;
}

// Inclusion-exclusion over the subsets S of the query's bits (s_w of word w): P(all set) =
// sum_S (-1)^|S| E[y_S^L], L ~ Poisson(lambda) keys in the block, y_S = P(one key avoids S),
// averaged over the key's first word v0 and whether its offset matches the query's (o = ±o_q:
// probability 2/63, or 1/63 when o_q = 32, itself of probability 1/63).
std::vector<Term> Terms(uint32_t k) {
  int cap[8];
  for (int w = 0; w < 8; ++w) cap[w] = BitsInWord(k, 0, w);
  std::vector<Term> terms;
  int s[8] = {0};
  for (;;) {
    double coef = 1;
    for (int w = 0; w < 8; ++w) coef *= s[w] == 0 ? 1 : (s[w] == 1 ? -cap[w] : 1);
    for (int half = 0; half < 2; ++half) {  // o_q = 32 (half) or not
      const double weight = half ? 1.0 / 63 : 62.0 / 63;
      const double p_match = half ? 1.0 / 63 : 2.0 / 63;
      double y = 0;
      for (int v0 = 0; v0 < 8; ++v0) {
        double yes = 1, no = 1;
        for (int w = 0; w < 8; ++w) {
          const int c = BitsInWord(k, v0, w);
          yes *= Avoid(c, s[w], true, half);
          no *= Avoid(c, s[w], false, half);
        }
        y += p_match * yes + (1 - p_match) * no;
      }
      terms.push_back(Term{coef * weight, 1 - y / 8});
    }
    if (!NextMixedRadix(s, cap)) break;  // next subset
  }
  return MergedTerms(std::move(terms));
}

}  // namespace

double ShiftingSpec::ModelFpr(uint32_t k, double n, uint64_t num_blocks) {
  return EvalCachedTerms<Terms, kMinK, kMaxK>(k, n / static_cast<double>(num_blocks));
}

// Pairs sit in distinct words and their two bits differ: k distinct bits.
double ShiftingSpec::DistinctBitsPerKey(uint32_t k, double) { return k; }

// Per block, averaged over the query's first word w0: a pair's two bits are two distinct uniform
// bits of its word, both set with probability X(X - 1) / (64 * 63) for X set bits (the average
// over o of popcount(W & rotr(W, o)) / 64); the odd single bit with X / 64. The offset is shared by
// a key's words, which this product over words ignores: for the word contents a filter holds, the
// exact average over o (8 * 63 popcounts a block instead of 8 * 8) differed by 0.01% at
// 1e7 keys. O(8 * 8) per block.
double ShiftingSpec::ExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t k) {
  const uint32_t pairs = k / 2;
  const bool odd = (k & 1) != 0;
  double sum = 0;
  for (uint64_t b = 0; b < num_blocks; ++b) {
    double single[8], pair[8];
    bool any = false;
    for (int w = 0; w < 8; ++w) {
      const double x = Popcount64(WordAt(bytes, 8 * b + w));
      single[w] = x / 64;
      pair[w] = x * (x - 1) / (64.0 * 63);
      any = any || x != 0;
    }
    if (!any) continue;
    double block = 0;
    for (uint32_t w0 = 0; w0 < 8; ++w0) {
      double p = odd ? single[(w0 + pairs) & 7] : 1;
      for (uint32_t i = 0; i < pairs && p != 0; ++i) p *= pair[(w0 + i) & 7];
      block += p;
    }
    sum += block / 8;
  }
  return sum / static_cast<double>(num_blocks);
}

}  // namespace detail
}  // namespace simdbloom
