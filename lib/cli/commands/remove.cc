// SPDX-License-Identifier: Apache-2.0
// simdbloom remove: deletes keys from a counting filter.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "lib/cli/commands/commands.h"
#include "lib/cli/commands/common.h"
#include "lib/cli/io.h"
#include "lib/cli/output.h"
#include "lib/cli/progress.h"

namespace simdbloom {
namespace cli {

// Deletes the keys of FILEs from a counting filter, saved atomically to -o OUT or over FILTER.
// A key surely absent proves that the input holds keys never inserted, whose false positives
// would decrement inserted keys' counters: then nothing is saved and the exit status is 1, unless
// --force.
int Remove(const std::vector<std::string>& args) {
  const Options o("remove", args, Specs({{"output", 'o', true}, {"force", 0, false}, kNullSpec}));
  const bool force = o.Has("force");
  const Common c = ReadCommon(o, "remove");
  if (o.positional().empty()) throw CliError(kExitUsage, "remove: FILTER is required");
  const std::string path = o.positional()[0];
  if (path == "-") throw CliError(kExitUsage, "remove: a filter must be a file, not stdin");
  const std::string out_path = o.Str("output", path);
  if (!o.Has("output") && RegularFileSize(path) < 0) {
    throw CliError(kExitUsage, "remove: " + path + " is not a regular file: give -o OUT");
  }
  if (!c.stats.empty() && out_path == c.stats) {
    throw CliError(kExitUsage, "remove: --stats and the output name the same file");
  }
  CheckWritableDestination(out_path);
  const auto files =
      FilesOrStdin(std::vector<std::string>(o.positional().begin() + 1, o.positional().end()));
  CheckOutputIsNoInput("remove", out_path, files);
  const auto start = std::chrono::steady_clock::now();
  StoredFilter stored = StoredFilter::Load(path);
  if (stored.kind != FileKind::kCounting) {
    RefuseKind("remove", path, stored.kind,
               "only a counting filter can delete keys (simdbloom build --counting)");
  }
  CheckTakesLines("remove", path, stored.key_type());
  KeySet& set = *stored.set;
  CountingFilter& f = set.counts();
  Progress progress(c.progress, "remove", TotalBytes(files));
  // The rate at which a key never inserted passes for present, before the removals.
  const double fpp_before = f.predicted_fpp(f.size());
  uint64_t done = 0, saturated = 0;
  std::vector<uint8_t> flags(BatchFor(c));
  const Pass pass = StreamLines(files, c, progress, BatchFor(c), [&](const auto& lines) {
    // In key order: repeats remove twice. flags: 0 absent, 1 removed, 2 removed, all saturated.
    done += f.remove(Keys(lines.data(), lines.size()), flags.data());
    saturated += static_cast<uint64_t>(
        std::count(flags.begin(), flags.begin() + static_cast<ptrdiff_t>(lines.size()), 2));
  });
  progress.Finish();
  const uint64_t absent = pass.keys - done;
  const std::string absent_text =
      std::to_string(absent) + " of " + std::to_string(pass.keys) + " keys were not in the filter";
  if (absent > 0 && !force) {
    throw CliError(kExitFailure,
                   "remove: " + absent_text +
                       ": the input holds keys never inserted, and removing their false "
                       "positives would delete inserted keys; " +
                       path + " is unchanged (--force removes the others anyway)");
  }
  if (absent > 0) {
    // Among the keys never inserted, about fpp / (1 - fpp) passed for present per one rejected.
    const double suspect = static_cast<double>(absent) * fpp_before / (1 - fpp_before);
    char est[64];
    std::snprintf(est, sizeof(est), "%.0f", suspect);
    Note(c, absent_text + ": nothing removed for them; --force: about " + est + " of the " +
                std::to_string(done) +
                " removals may have been false positives of keys never inserted, each "
                "decrementing other keys' counters");
  }
  if (saturated > 0) {
    Note(c, std::to_string(saturated) +
                " removals found every counter of their key saturated (15): not undone exactly, "
                "those keys may still answer present");
  }
  set.Save(out_path);
  Json j;
  j.Str("filter_file", path)
      .Obj("filter", set.Geometry())
      .Int("removed", done)
      .Int("not_found", absent)
      .Int("saturated", saturated)
      .Int("present", f.size())
      .Str("output", out_path);
  Summary(c, j, "remove", pass, Seconds(start));
  return 0;
}

}  // namespace cli
}  // namespace simdbloom
