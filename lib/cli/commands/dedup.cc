// SPDX-License-Identifier: Apache-2.0
// simdbloom dedup: each key the first time it is (probably) seen, in input order.
#include <string>
#include <vector>

#include "lib/cli/commands/commands.h"
#include "lib/cli/commands/common.h"
#include "lib/cli/io.h"
#include "lib/cli/progress.h"

namespace simdbloom {
namespace cli {

int Dedup(const std::vector<std::string>& args) {
  const Options o("dedup", args, Specs({{"n", 'n', true}, {"fpp", 0, true}, kNullSpec}));
  const Common c = ReadCommon(o, "dedup");
  const auto files = FilesOrStdin(o.positional());
  const double fpp = ParseFpp("dedup", o);
  const auto start = std::chrono::steady_clock::now();
  Sized sized;
  KeySet set = MakeSet("dedup", o, files, c, fpp, Layout::kBlock512, sized);
  Progress progress(c.progress, "dedup", TotalBytes(files));
  Writer w(1, c.delim);
  std::vector<uint8_t> fresh(BatchFor(c));
  uint64_t unique = 0;
  const Pass pass = StreamLines(files, c, progress, BatchFor(c), [&](const auto& lines) {
    // One thread: the first occurrence must win, in input order. --quiet silences the notes,
    // never the data.
    unique += set.InsertNew(lines, fresh.data());
    for (size_t i = 0; i < lines.size(); ++i) {
      if (fresh[i]) w.Line(lines[i]);
    }
  });
  progress.Finish();
  w.Flush();
  if (!set.scalable() && unique > sized.n) {
    Note(c, "warning: more distinct lines (" + std::to_string(unique) +
                ") than the filter was sized for (" + std::to_string(sized.n) +
                "); new lines were dropped at a higher rate");
  }
  Json j;
  j.Str("sizing", sized.how)
      .Int("expected_items", sized.n)
      .Num("fpp", fpp)
      .Obj("filter", set.Geometry())
      .Int("unique", unique)
      .Int("duplicates", pass.keys - unique);
  Summary(c, j, "dedup", pass, Seconds(start));
  return 0;
}

}  // namespace cli
}  // namespace simdbloom
