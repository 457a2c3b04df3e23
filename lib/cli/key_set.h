// SPDX-License-Identifier: Apache-2.0
// The filters a command builds or loads. KeySet is a set of keys: a plain Filter (sized in
// advance: -n, or the lines of regular files counted), a ScalableFilter chain (a pipe without -n:
// it grows with the input) or a CountingFilter (build --counting: keys can be removed).
// StoredFilter is any filter file: a KeySet, a SpatialFilter (build --areas, classify) or a
// shifting set filter (ShBF_A, ShBF_x: made by the library, described by info). Files are told
// apart by their magic (lib/FORMAT.md; the kinds, their names and magics: lib/formats/kinds.h).
#ifndef SIMDBLOOM_CLI_KEY_SET_H_
#define SIMDBLOOM_CLI_KEY_SET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/cli/json.h"
#include "lib/formats/kinds.h"
#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/shifting.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"

namespace simdbloom {
namespace cli {

// The kinds of filter file (kPlain, kScalable, kCounting, kSpatial, kShbfA, kShbfX), as `info` and
// the JSON's "kind" name them: the registry's (lib/formats/kinds.h).
using FileKind = detail::FileKindId;
// The registry's name of `kind` ("plain", ...).
const char* KindName(FileKind kind);

// How the commands' lines are keys (--key-type): KeyType::kBytes, the default, a line is its bytes;
// kInt64 or kInt32, a line is a decimal integer ([+-]digits, -2^63 .. 2^64 - 1), a key by its
// value: Guava's longFunnel / integerFunnel, a Parquet INT64 / INT32 column, a filter of integers
// the library made. Set once per command, before any filter is loaded or made; `given`: by the
// user (a Guava file, whose bytes do not say, is read only then).
void SetLineKeyType(KeyType type, bool given);
KeyType LineKeyType();
// The integers `lines` spell (LineKeyType kInt64 or kInt32) as 8-byte values into `out`. For
// kInt32 a value outside -2^31 .. 2^32 - 1 is refused when `insert` (CliError exit 2 naming the
// line), else replaced by one no int32 filter holds (absent). A line that is not a decimal
// integer: CliError exit 2 naming it.
void LinesAsIntegers(const std::vector<std::string_view>& lines, bool insert,
                     std::vector<int64_t>* out);
void LinesAsIntegers(const std::string_view* lines, size_t n, bool insert,
                     std::vector<int64_t>* out);

class KeySet {
 public:
  explicit KeySet(Filter f) : plain_(std::move(f)) {}
  explicit KeySet(ScalableFilter s) : chain_(std::move(s)) {}
  explicit KeySet(CountingFilter c) : counting_(std::move(c)) {}

  // Reads a filter file that is a set of keys (plain, scalable or counting). Throws CliError
  // naming the file: exit 1 if it is missing, not a simdbloom file, truncated or corrupt; exit 2
  // ("CMD: FILE is a spatial filter, ...") for a filter file of another kind.
  static KeySet Load(const std::string& path, const std::string& cmd);

  // A filter in Guava's writeTo form (Filter::from_guava / to_guava; layouts guava, guava32):
  // loaded from such a file, saved as one.
  static KeySet Guava(Filter f) {
    KeySet s(std::move(f));
    s.guava_ = true;
    return s;
  }
  bool guava() const { return guava_; }

  FileKind kind() const {
    return chain_ ? FileKind::kScalable : counting_ ? FileKind::kCounting : FileKind::kPlain;
  }
  bool scalable() const { return chain_.has_value(); }
  bool counting() const { return counting_.has_value(); }
  const Filter& plain() const { return *plain_; }
  const ScalableFilter& chain() const { return *chain_; }
  const CountingFilter& counts() const { return *counting_; }
  Filter& plain() { return *plain_; }
  ScalableFilter& chain() { return *chain_; }
  CountingFilter& counts() { return *counting_; }

  // Inserts the lines (Threads{T} for plain filters; a chain has no parallel form, and gets only
  // the lines it does not hold yet, as InsertNew; a counting filter counts every line, repeats
  // included, on one thread).
  void Insert(const std::vector<std::string_view>& lines, unsigned threads);
  // Inserts lines and sets fresh[i] = 1 iff line i is new to the whole set (not held before the
  // call, not a repeat of an earlier line of the call): the dedup rule. Returns how many. A chain
  // is probed first (its insert only looks at the newest stage) and fed in pieces that cannot
  // cross a stage boundary, so a line is never new twice. Allocates scratch once (grows to the
  // largest batch).
  uint64_t InsertNew(const std::vector<std::string_view>& lines, uint8_t* fresh);
  // out[i] = 1 if key i may be present; returns the count.
  uint64_t Contains(const Keys& keys, uint8_t* out, unsigned threads) const;

  // What the filter holds (KeyType): bytes for every filter simdbloom build makes.
  KeyType key_type() const;
  // Declares it (the library's set_key_type: for a filter of none or legacy).
  void set_key_type(KeyType type);

  size_t size_bytes() const;
  // From the bits (a counting filter: the bits of its plain filter, one pass over the counters).
  double expected_fpp() const;
  double approximate_count() const;
  // Geometry, Describe and Stats (and StoredFilter's Describe and Info, SpatialGeometry,
  // EscapedName, AreaLabelText below) are in describe.cc: what info and the summaries print.
  // {"kind":"plain"|"scalable"|"counting","layout":...,"bits"/"k", "stages" or "counters",
  // ...,"bytes":...}
  Json Geometry() const;
  // Human-readable description (the info command), one "name: value" per line.
  std::string Describe() const;
  // info --json's fields after "file" and "filter".
  void Stats(Json& j) const;
  // Saves atomically (temp name + rename). Throws CliError (exit 1).
  void Save(const std::string& path) const;

 private:
  std::optional<Filter> plain_;
  std::optional<ScalableFilter> chain_;
  std::optional<CountingFilter> counting_;
  bool guava_ = false;
  // InsertNew scratch for chains.
  std::vector<std::string_view> pending_;
  std::vector<uint32_t> index_;
  std::vector<uint8_t> hit_, new_, flags_;
};

// Any filter file.
struct StoredFilter {
  FileKind kind = FileKind::kPlain;
  std::optional<KeySet> set;  // plain, scalable, counting
  std::optional<SpatialFilter> spatial;
  std::optional<ShiftingAssociation> shbf_a;
  std::optional<ShiftingMultiplicity> shbf_x;

  // Reads a filter file of any kind, told by its magic. A regular file is opened once (a reader
  // racing an atomic replacement sees one file); a pipe is read once. Throws CliError (exit 1)
  // naming the file: missing, not a simdbloom filter, truncated or corrupt; exit 2 for "-".
  static StoredFilter Load(const std::string& path);

  // What the filter holds (KeyType).
  KeyType key_type() const;

  // info: a description, one "name: value" per line, and info --json's object (after "file").
  std::string Describe() const;
  void Info(Json& j) const;

 private:
  std::string DescribeKind() const;
};

// The commands read keys as lines of text: byte strings, or decimal integers with --key-type
// (LineKeyType). A filter of the other kind cannot answer them: a usage error (exit 2), one line
// naming both key types: "CMD: PATH holds int64 keys; lines of text are bytes keys ...".
void CheckTakesLines(const std::string& cmd, const std::string& path, KeyType type);

// The one-line refusal of a command for a filter file of a kind it does not handle (exit 2):
// "CMD: PATH is a KIND filter; WHAT".
[[noreturn]] void RefuseKind(const std::string& cmd, const std::string& path, FileKind kind,
                             const std::string& what);

// A spatial filter's "filter" object: {"kind":"spatial","areas":...,"cells":...,"cell_bytes":...,
// "k":...,"bytes":...}.
Json SpatialGeometry(const SpatialFilter& f);

// An area name as classify and info print it, one line whatever it holds (as ls
// --quoting-style=escape): backslash, newline, tab and CR as \\ \n \t \r, other control
// bytes, C1 controls and bytes of no well-formed UTF-8 sequence as \ooo (octal); the rest as is.
std::string EscapedName(std::string_view name);
// The name classify prints for `label` of `f`: its name (escaped), its number if it has none, "-"
// for 0.
std::string AreaLabelText(const SpatialFilter& f, uint16_t label);

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_KEY_SET_H_
