// SPDX-License-Identifier: Apache-2.0
// simdbloom merge: the union of two stored filters.
#include <string>
#include <vector>

#include "lib/cli/commands/commands.h"
#include "lib/cli/commands/common.h"
#include "lib/cli/output.h"

namespace simdbloom {
namespace cli {
namespace {

// Why merge refuses a kind (exit 2).
const char* NoMerge(FileKind kind) {
  switch (kind) {
    case FileKind::kSpatial:
      return "spatial filters are not merged (the library has no merge for them: two files' "
             "areas may differ in number, names and meaning); build one filter from every "
             "area's file (simdbloom build --areas)";
    case FileKind::kShbfA:
      return "ShBF_A filters are not merged: a key is inserted once, with its membership (first "
             "set, second or both); a key of A's first set and B's second would need another "
             "membership, which ORed bits cannot give";
    case FileKind::kShbfX:
      return "ShBF_x filters are not merged: a key is inserted once, at its count; a key of both "
             "would need the sum of its counts, which ORed bits cannot give";
    default:
      return nullptr;
  }
}

// Key types must agree for a merge: a filter of none takes the other's; a file written before key
// types (legacy) holds lines, as every filter this command builds, and is declared bytes to merge
// with one of bytes. Anything else is a usage error (exit 2) naming both key types.
void MergeKeyTypes(const std::string& a, KeySet& sa, const std::string& b, KeySet& sb) {
  const KeyType ta = sa.key_type(), tb = sb.key_type();
  if (ta == tb || ta == KeyType::kNone || tb == KeyType::kNone) return;
  if (ta == KeyType::kLegacy && tb == KeyType::kBytes) {
    sa.set_key_type(KeyType::kBytes);
  } else if (tb == KeyType::kLegacy && ta == KeyType::kBytes) {
    sb.set_key_type(KeyType::kBytes);
  } else {
    const std::string what =
        a + " holds " + key_type_name(ta) + " keys, " + b + " " + key_type_name(tb) + " keys";
    throw CliError(kExitUsage, "merge: " + what + ": filters of different key types do not merge");
  }
}

}  // namespace

int Merge(const std::vector<std::string>& args) {
  const Options o("merge", args, Specs({{"output", 'o', true}, {"key-type", 0, true}}));
  const Common c = ReadCommon(o, "merge");
  if (o.positional().size() != 2) throw CliError(kExitUsage, "merge: needs two filter files, A B");
  if (!o.Has("output")) throw CliError(kExitUsage, "merge: -o OUT is required");
  const auto start = std::chrono::steady_clock::now();
  const std::string a = o.positional()[0], b = o.positional()[1];
  if (!c.stats.empty() && o.Str("output", "") == c.stats) {
    throw CliError(kExitUsage, "merge: --stats and -o name the same file");
  }
  CheckWritableDestination(o.Str("output", ""));
  StoredFilter fa = StoredFilter::Load(a);
  if (NoMerge(fa.kind) != nullptr) RefuseKind("merge", a, fa.kind, NoMerge(fa.kind));
  StoredFilter fb = StoredFilter::Load(b);
  if (NoMerge(fb.kind) != nullptr) RefuseKind("merge", b, fb.kind, NoMerge(fb.kind));
  KeySet& sa = *fa.set;
  KeySet& sb = *fb.set;
  if (sa.kind() != sb.kind()) {
    throw CliError(kExitFailure, a + " and " + b + " cannot be merged: " + a + " is a " +
                                     KindName(sa.kind()) + " filter, " + b + " a " +
                                     KindName(sb.kind()) + " filter");
  }
  MergeKeyTypes(a, sa, b, sb);
  try {
    if (sa.scalable()) {
      sa.chain().merge(sb.chain());
    } else if (sa.counting()) {
      sa.counts().merge(sb.counts());
    } else {
      sa.plain().merge(sb.plain());
    }
  } catch (const Error& e) {
    throw CliError(kExitFailure, a + " and " + b + " cannot be merged: " + e.what());
  }
  sa.Save(o.Str("output", ""));
  Json j;
  j.Obj("filter", sa.Geometry())
      .Num("approximate_count", sa.approximate_count())
      .Num("expected_fpp", sa.expected_fpp())
      .Str("output", o.Str("output", ""));
  Summary(c, j, "merge", {0, 0}, Seconds(start));
  return 0;
}

}  // namespace cli
}  // namespace simdbloom
