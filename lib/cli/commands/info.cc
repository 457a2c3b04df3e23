// SPDX-License-Identifier: Apache-2.0
// simdbloom info: describes a stored filter of any kind.
#include <string>
#include <vector>

#include "lib/cli/commands/commands.h"
#include "lib/cli/commands/common.h"
#include "lib/cli/io.h"

namespace simdbloom {
namespace cli {

// info's data is the description: --json prints it as one JSON object on stdout instead of the
// text (with --quiet too), with only what a stored filter has (no keys, bytes read or seconds);
// --stats FILE writes that object to FILE and leaves the text on stdout.
int Info(const std::vector<std::string>& args) {
  const Options o("info", args, Specs({{"key-type", 0, true}}));
  const Common c = ReadCommon(o, "info");
  if (o.positional().size() != 1) throw CliError(kExitUsage, "info: needs one FILTER file");
  const StoredFilter stored = StoredFilter::Load(o.positional()[0]);
  Writer w(1);
  if (!(c.json && c.stats.empty())) {
    w.Text("file: " + o.positional()[0] + "\n" + stored.Describe());
    w.Flush();
  }
  if (!c.json) return 0;
  Json j;
  j.Str("file", o.positional()[0]);
  stored.Info(j);
  if (!c.stats.empty()) {
    WriteSummary(c, j.str() + "\n");
  } else {
    w.Text(j.str() + "\n");
    w.Flush();
  }
  return 0;
}

}  // namespace cli
}  // namespace simdbloom
