// SPDX-License-Identifier: Apache-2.0
#include "kernels/fpr_terms.h"

#include <algorithm>
#include <cmath>

namespace simdbloom {
namespace detail {

std::vector<Term> MergedTerms(std::vector<Term> terms) {
  std::sort(terms.begin(), terms.end(),
            [](const Term& a, const Term& b) { return a.one_minus_y < b.one_minus_y; });
  std::vector<Term> out;
  for (const Term& t : terms) {
    if (!out.empty() && std::fabs(out.back().one_minus_y - t.one_minus_y) <= 1e-15) {
      out.back().coef += t.coef;
    } else {
      out.push_back(t);
    }
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const Term& t) { return t.coef == 0; }),
            out.end());
  return out;
}

double Clamp01(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }

double EvalTerms(const std::vector<Term>& terms, double lambda) {
  double sum = 0;
  for (const Term& t : terms) sum += t.coef * std::exp(-lambda * t.one_minus_y);
  return Clamp01(sum);
}

}  // namespace detail
}  // namespace simdbloom
