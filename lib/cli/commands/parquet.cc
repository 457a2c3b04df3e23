// SPDX-License-Identifier: Apache-2.0
// simdbloom parquet: probes the Bloom filters of Parquet files' row groups.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "lib/cli/commands/commands.h"
#include "lib/cli/commands/common.h"
#include "lib/cli/io.h"
#include "lib/cli/parquet_footer.h"
#include "lib/cli/progress.h"
#include "simdbloom/filter_set.hpp"

namespace simdbloom {
namespace cli {
namespace {

class FileSource : public ParquetSource {
 public:
  explicit FileSource(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw CliError(kExitFailure, ErrnoMessage(path, "cannot open", errno));
    struct stat st;
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw CliError(kExitFailure, path + ": not a regular file");
    }
    size_ = static_cast<uint64_t>(st.st_size);
  }
  ~FileSource() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  void Read(uint64_t offset, size_t n, uint8_t* out) const override {
    while (n > 0) {
      const ssize_t r = ::pread(fd_, out, n, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw CliError(kExitFailure, ErrnoMessage(path_, "read error", errno));
      if (r == 0) throw ParquetError("file ended early (was it truncated while being read?)");
      out += r;
      offset += static_cast<uint64_t>(r);
      n -= static_cast<size_t>(r);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// The Bloom filter of column chunk `col` of row group g; null when it has none (every `what`
// may be present: said on stderr and counted in `without`). A filter that does not load is a
// ParquetError.
std::unique_ptr<Filter> RowGroupBloom(const Common& c, const FileSource& file,
                                      const std::string& path, const std::string& column,
                                      const ParquetColumnChunk& col, size_t g, const char* what,
                                      uint64_t& without) {
  if (col.bloom_offset < 0) {
    ++without;
    Note(c, path + ": row group " + std::to_string(g) + ": column " + column +
                " has no Bloom filter (every " + what + " may be present)");
    return nullptr;
  }
  try {
    return std::make_unique<Filter>(ReadBloomFilter(file, col));
  } catch (const Error& e) {
    throw ParquetError("row group " + std::to_string(g) + ", column " + column +
                       ": bad Bloom filter: " + e.what());
  }
}

// One filter of a multi-file prune: its file and row group, and its filter (null: none, every
// key may be in the row group).
struct RowGroupFilter {
  size_t file;
  size_t row_group;
  ParquetType type;
  std::unique_ptr<Filter> filter;
};

// parquet --keys FILE --column NAME F1 F2 ...: every key against every row group's filter of the
// column, one FilterSet call per column type (INT32, INT64, bytes), reading only the footers and
// the filters. Prints FILE<TAB>ROW_GROUP<TAB>KEY per (row group, key) that may match, in file,
// row-group and key order; --count: FILE<TAB>ROW_GROUP<TAB>COUNT per row group.
int ParquetMany(const Options& o, const Common& c) {
  const auto start = std::chrono::steady_clock::now();
  const std::string column = o.Str("column", "");
  const std::vector<std::string>& paths = o.positional();
  if (paths.empty()) throw CliError(kExitUsage, "parquet: --keys needs Parquet FILEs to probe");
  // The keys: lines of --keys FILE ('-': stdin).
  std::vector<std::string> keys;
  Progress none(false, "parquet", -1);
  const Pass pass = StreamLines({o.Str("keys", "-")}, c, none, BatchFor(c), [&](const auto& lines) {
    for (const auto& l : lines) keys.emplace_back(l);
  });
  std::vector<RowGroupFilter> groups;
  uint64_t without = 0;
  for (size_t fi = 0; fi < paths.size(); ++fi) {
    const std::string& path = paths[fi];
    const FileSource file(path);
    try {
      const ParquetFooter footer = ReadFooter(file);
      bool found = false;
      std::string names;
      for (size_t g = 0; g < footer.row_groups.size(); ++g) {
        for (const auto& col : footer.row_groups[g].columns) {
          if (g == 0) names += (names.empty() ? "" : ", ") + col.path;
          if (col.path != column) continue;
          found = true;
          try {
            ParquetKeyType(col.type);
          } catch (const ParquetError& e) {
            throw CliError(kExitUsage, path + ": column " + column + ": " + e.what());
          }
          RowGroupFilter rg{fi, g, col.type, nullptr};
          rg.filter = RowGroupBloom(c, file, path, column, col, g, "key", without);
          groups.push_back(std::move(rg));
        }
      }
      if (!found && !footer.row_groups.empty()) {
        throw CliError(kExitUsage, path + ": no column '" + column + "' (columns: " + names + ")");
      }
      if (footer.row_groups.empty()) Note(c, path + ": the file has no row groups");
    } catch (const ParquetError& e) {
      throw CliError(kExitFailure, path + ": " + e.what());  // a malformed file: a failure
    }
  }
  // The keys as each column type reads them (parsed once per type present), then one FilterSet
  // per type over its row groups' filters. hits[i]: the keys row group i may hold, ascending.
  std::vector<std::vector<uint32_t>> hits(groups.size());
  const ParquetType kinds[] = {ParquetType::kInt32, ParquetType::kInt64, ParquetType::kByteArray};
  for (ParquetType kind : kinds) {
    const auto same = [&](ParquetType t) {
      const bool bytes = t == ParquetType::kByteArray || t == ParquetType::kFixedLenByteArray;
      return kind == ParquetType::kByteArray ? bytes : t == kind;
    };
    std::vector<const Filter*> filters;
    std::vector<size_t> which;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (!same(groups[i].type)) continue;
      if (groups[i].filter == nullptr) {
        hits[i].resize(keys.size());
        for (size_t k = 0; k < keys.size(); ++k) hits[i][k] = static_cast<uint32_t>(k);
      } else {
        filters.push_back(groups[i].filter.get());
        which.push_back(i);
      }
    }
    if (filters.empty() || keys.empty()) continue;
    // Integers by value as 8-byte patterns (the library's int64 rule: -1 and 2^64 - 1 are one
    // key); for an INT32 column a value of 2^63 or more is beyond its range whatever its bits,
    // so it is given one that no INT32 filter holds.
    std::vector<int64_t> ints;
    std::vector<std::string_view> views;
    for (const std::string& k : keys) {
      if (kind == ParquetType::kByteArray) {
        views.push_back(k);
        continue;
      }
      ParquetValue v;
      try {
        v = ParseParquetValue(kind, k);
      } catch (const ParquetError& e) {
        throw CliError(kExitUsage, "parquet: column " + column + ": " + e.what());
      }
      const bool beyond32 = kind == ParquetType::kInt32 && !v.negative && (v.bits >> 63) != 0;
      ints.push_back(beyond32 ? INT64_MAX : static_cast<int64_t>(v.bits));
    }
    const Keys batch = kind == ParquetType::kByteArray ? Keys(views) : Keys(ints);
    std::vector<FilterSet::Match> matches;
    FilterSet(filters).contains(batch, matches, Threads{c.threads});
    for (const FilterSet::Match& m : matches) hits[which[m.filter]].push_back(m.key);
  }
  Writer w(1);
  uint64_t maybe = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    maybe += hits[i].size();
    const std::string where = paths[groups[i].file] + "\t" + std::to_string(groups[i].row_group);
    if (o.Has("count")) {
      w.Text(where + "\t" + std::to_string(hits[i].size()) + "\n");
      continue;
    }
    for (uint32_t k : hits[i]) w.Text(where + "\t" + keys[k] + "\n");
  }
  w.Flush();
  const uint64_t probes = static_cast<uint64_t>(groups.size()) * keys.size();
  Json j;
  j.Int("files", paths.size())
      .Str("column", column)
      .Int("row_groups", groups.size())
      .Int("row_groups_without_filter", without)
      .Int("keys", keys.size())
      .Int("probes", probes)
      .Int("maybe", maybe)
      .Int("no", probes - maybe);
  Summary(c, j, "parquet", pass, Seconds(start));
  return 0;
}

}  // namespace

int Parquet(const std::vector<std::string>& args) {
  const Options o("parquet", args,
                  Specs({{"column", 0, true}, {"keys", 0, true}, {"count", 'c', false}}));
  const Common c = ReadCommon(o, "parquet");
  if (o.Has("keys")) {
    if (!o.Has("column")) throw CliError(kExitUsage, "parquet: --column NAME is required");
    if (o.Times("column") > 1) {
      throw CliError(kExitUsage, "parquet: --column given " + std::to_string(o.Times("column")) +
                                     " times: one column per call (every key is probed in it)");
    }
    return ParquetMany(o, c);
  }
  if (o.Has("count")) throw CliError(kExitUsage, "parquet: --count needs --keys FILE");
  if (o.positional().size() < 2) {
    throw CliError(kExitUsage, "parquet: needs FILE --column NAME VALUE...");
  }
  if (!o.Has("column")) throw CliError(kExitUsage, "parquet: --column NAME is required");
  if (o.Times("column") > 1) {
    // Every VALUE is probed in the one column: a second --column would silently replace the first.
    throw CliError(kExitUsage, "parquet: --column given " + std::to_string(o.Times("column")) +
                                   " times: one column per call (every VALUE is probed in it)");
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string path = o.positional()[0], column = o.Str("column", "");
  const std::vector<std::string> values(o.positional().begin() + 1, o.positional().end());
  const FileSource file(path);
  Writer w(1);
  uint64_t maybe = 0, no = 0, without = 0, probes = 0;
  size_t row_groups = 0;
  try {
    const ParquetFooter footer = ReadFooter(file);
    row_groups = footer.row_groups.size();
    bool found = false;
    std::vector<std::string> names;
    for (size_t g = 0; g < footer.row_groups.size(); ++g) {
      const ParquetRowGroup& rg = footer.row_groups[g];
      const ParquetColumnChunk* chunk = nullptr;
      for (const auto& col : rg.columns) {
        if (col.path == column) chunk = &col;
        if (g == 0) names.push_back(col.path);
      }
      if (chunk == nullptr) continue;
      found = true;
      std::vector<ParquetValue> keys;  // by the column's type: integers or byte strings
      try {
        for (const auto& v : values) keys.push_back(ParseParquetValue(chunk->type, v));
      } catch (const ParquetError& e) {
        // The value or the column's type, not the file.
        throw CliError(kExitUsage, path + ": column " + column + ": " + e.what());
      }
      const std::unique_ptr<Filter> filter =
          RowGroupBloom(c, file, path, column, *chunk, g, "value", without);
      for (size_t i = 0; i < values.size(); ++i) {
        const bool hit = filter == nullptr || ParquetContains(*filter, keys[i]);
        ++probes;
        (hit ? maybe : no) += 1;
        w.Text(std::to_string(g) + "\t" + values[i] + "\t" + (hit ? "maybe" : "no") + "\n");
      }
    }
    if (!found && !footer.row_groups.empty()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw CliError(kExitUsage, path + ": no column '" + column + "' (columns: " + list + ")");
    }
    if (footer.row_groups.empty()) Note(c, path + ": the file has no row groups");
  } catch (const ParquetError& e) {
    throw CliError(kExitFailure, path + ": " + e.what());  // a malformed file: a failure
  }
  w.Flush();
  Json j;
  j.Str("file", path)
      .Str("column", column)
      .Int("row_groups", row_groups)
      .Int("row_groups_without_filter", without)
      .Int("probes", probes)
      .Int("maybe", maybe)
      .Int("no", no);
  Summary(c, j, "parquet", {values.size(), 0}, Seconds(start));
  return 0;
}

}  // namespace cli
}  // namespace simdbloom
