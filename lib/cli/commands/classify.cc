// SPDX-License-Identifier: Apache-2.0
// simdbloom classify: the area of a spatial filter each key is in.
#include <string>
#include <vector>

#include "lib/cli/commands/commands.h"
#include "lib/cli/commands/common.h"
#include "lib/cli/io.h"
#include "lib/cli/progress.h"

namespace simdbloom {
namespace cli {

// Prints LINE<TAB>AREA for each key: the area's name (its label without a name), "-" for none;
// --labels: the label, 0 for none. Exit status as grep (and query): 0 if a key is in an area, 1
// if none, 2 on any error (ClassifyStatus).
int Classify(const std::vector<std::string>& args) {
  const Options o("classify", args, Specs({{"labels", 0, false}, kNullSpec}));
  const Common c = ReadCommon(o, "classify");
  if (o.positional().empty()) throw CliError(kExitUsage, "classify: FILTER is required");
  const std::string path = o.positional()[0];
  const auto start = std::chrono::steady_clock::now();
  StoredFilter stored = StoredFilter::Load(path);
  if (!stored.spatial) {
    RefuseKind("classify", path, stored.kind,
               "classify reads spatial filters (simdbloom build --areas); simdbloom query probes "
               "sets of keys");
  }
  CheckTakesLines("classify", path, stored.key_type());
  const SpatialFilter& f = *stored.spatial;
  const auto files =
      FilesOrStdin(std::vector<std::string>(o.positional().begin() + 1, o.positional().end()));
  const bool numbers = o.Has("labels");
  // The text of each label, once.
  std::vector<std::string> text(f.num_areas() + 1);
  for (uint32_t l = 0; l <= f.num_areas(); ++l) {
    const auto label = static_cast<uint16_t>(l);
    text[l] = numbers ? std::to_string(l) : AreaLabelText(f, label);
  }
  Progress progress(c.progress, "classify", TotalBytes(files));
  Writer w(1, c.delim);
  std::vector<uint16_t> labels(BatchFor(c));
  uint64_t in_area = 0;
  bool stop = false;
  const Pass pass = StreamLines(
      files, c, progress, BatchFor(c),
      [&](const auto& lines) {
        const uint64_t n = f.classify(Keys(lines.data(), lines.size()), labels.data());
        in_area += n;
        if (c.quiet) {
          stop = n > 0;
          return;
        }
        for (size_t i = 0; i < lines.size(); ++i) {
          w.Text(lines[i]);
          w.Text("\t");
          w.Line(text[labels[i]]);
        }
      },
      &stop);
  progress.Finish();
  w.Flush();
  Json j;
  j.Str("filter_file", path)
      .Obj("filter", SpatialGeometry(f))
      .Int("in_area", in_area)
      .Int("no_area", pass.keys - in_area);
  Summary(c, j, "classify", pass, Seconds(start));
  return in_area > 0 ? 0 : kExitFailure;
}

}  // namespace cli
}  // namespace simdbloom
