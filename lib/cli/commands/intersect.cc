// SPDX-License-Identifier: Apache-2.0
// simdbloom intersect: the keys of B that may be in A, in B's order.
#include <string>
#include <vector>

#include "lib/cli/commands/commands.h"
#include "lib/cli/commands/common.h"
#include "lib/cli/io.h"
#include "lib/cli/progress.h"

namespace simdbloom {
namespace cli {

int Intersect(const std::vector<std::string>& args) {
  const Options o("intersect", args, Specs({{"n", 'n', true}, {"fpp", 0, true}, kNullSpec}));
  const Common c = ReadCommon(o, "intersect");
  if (o.positional().size() != 2) throw CliError(kExitUsage, "intersect: needs two files, A B");
  const std::string a = o.positional()[0], b = o.positional()[1];
  if (a == "-" && b == "-") throw CliError(kExitUsage, "stdin ('-') can be read only once");
  const double fpp = ParseFpp("intersect", o);
  const auto start = std::chrono::steady_clock::now();
  RegularFileSize(b);  // a missing B is reported before A is read
  Sized sized;
  KeySet set = MakeSet("intersect", o, {a}, c, fpp, Layout::kBlock512, sized);
  const size_t batch = BatchFor(c);
  Progress progress(c.progress, "intersect: reading A", TotalBytes({a}));
  Pass pass_a;
  if (c.threads <= 1 || set.scalable() || !InsertRanges({a}, c, progress, set.plain(), pass_a)) {
    pass_a = StreamLines({a}, c, progress, batch,
                         [&](const auto& lines) { set.Insert(lines, c.threads); });
  }
  progress.Stage("intersect: probing B", TotalBytes({b}));
  Writer w(1, c.delim);
  std::vector<uint8_t> hits(batch);
  uint64_t matches = 0;
  const Pass pass_b = StreamLines({b}, c, progress, batch, [&](const auto& lines) {
    matches += set.Contains(Keys(lines.data(), lines.size()), hits.data(), c.threads);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (hits[i]) w.Line(lines[i]);
    }
  });
  progress.Finish();
  w.Flush();
  Json j;
  j.Str("sizing", sized.how)
      .Int("expected_items", sized.n)
      .Num("fpp", fpp)
      .Obj("filter", set.Geometry())
      .Int("keys_a", pass_a.keys)
      .Int("keys_b", pass_b.keys)
      .Int("matches", matches);
  Summary(c, j, "intersect", {pass_a.keys + pass_b.keys, pass_a.bytes + pass_b.bytes},
          Seconds(start));
  return 0;
}

}  // namespace cli
}  // namespace simdbloom
