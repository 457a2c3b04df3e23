// SPDX-License-Identifier: Apache-2.0
// The spatial filter's model for its blocked geometry (lib/FORMAT.md, "Spatial filter: formulas"):
// the paper's a-priori emersion, false-positive and inter-set error probabilities with the
// Poisson block-load model in place of the paper's unblocked (1 - 1/m)^(kn) terms.
#include "kernels/fpr_terms.h"

#include <cmath>

#include "kernels/spatial/spec.h"

namespace simdbloom {
namespace detail {
namespace {

// Inclusion-exclusion over the subsets T of a query's k cells (groups 0..k-1, w0 = 0 by
// symmetry): y(T) = probability that one key of the block writes none of T. The key's first group
// v is uniform; it writes one uniform cell (of 8) in each group v .. v + k - 1 (mod 8).
std::vector<Term> Terms(uint32_t k) {
  std::vector<Term> terms;
  for (uint32_t t = 0; t < (1u << k); ++t) {
    double y = 0;
    for (uint32_t v = 0; v < 8; ++v) {
      double p = 1;
      for (uint32_t g = 0; g < k; ++g) {
        if (((t >> g) & 1) != 0 && ((g - v) & 7) < k) p *= 7.0 / 8.0;
      }
      y += p / 8;
    }
    terms.push_back(Term{(__builtin_popcount(t) & 1) != 0 ? -1.0 : 1.0, 1 - y});
  }
  return MergedTerms(std::move(terms));
}

}  // namespace

double SpatialAllWritten(uint32_t k, double lambda) {
  if (lambda <= 0) return 0;
  return EvalCachedTerms<Terms, SpatialSpec::kMinK, SpatialSpec::kMaxK>(k, lambda);
}

double SpatialCellUntouched(uint32_t k, double lambda) {
  return std::exp(-lambda * k / static_cast<double>(SpatialSpec::kCellsPerBlock));
}

std::vector<SpatialAreaModel> SpatialModel(const std::vector<uint64_t>& members,
                                           uint64_t num_blocks, uint32_t k) {
  const size_t s = members.size();
  std::vector<SpatialAreaModel> out(s);
  const double blocks = static_cast<double>(num_blocks);
  double above = 0;  // keys of the areas after i
  double written_above = SpatialAllWritten(k, 0);
  for (size_t i = s; i-- > 0;) {
    const double from = above + static_cast<double>(members[i]);
    const double written_from = SpatialAllWritten(k, from / blocks);
    SpatialAreaModel& m = out[i];
    m.emersion = SpatialCellUntouched(k, above / blocks);
    m.fpp = Clamp01(written_from - written_above);
    m.isep = written_above;
    m.expected_cells = blocks * SpatialSpec::kCellsPerBlock *
                       (1 - SpatialCellUntouched(k, static_cast<double>(members[i]) / blocks)) *
                       m.emersion;
    above = from;
    written_above = written_from;
  }
  return out;
}

}  // namespace detail
}  // namespace simdbloom
