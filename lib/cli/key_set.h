// SPDX-License-Identifier: Apache-2.0
// The set a command builds or loads: a plain Filter (sized in advance: -n, or the lines of
// regular files counted) or a ScalableFilter chain (a pipe without -n: it grows with the input).
// Files of either kind are told apart by their magic ("SIMDBLOM" / "SIMDBSCL").
#ifndef SIMDBLOOM_CLI_KEY_SET_H_
#define SIMDBLOOM_CLI_KEY_SET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/cli/json.h"
#include "simdbloom/scalable.hpp"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace cli {

class KeySet {
 public:
  explicit KeySet(Filter f) : plain_(std::move(f)) {}
  explicit KeySet(ScalableFilter s) : chain_(std::move(s)) {}

  // Reads a filter file of either kind. Throws CliError (exit 1) naming the file: missing, not
  // a simdbloom file, truncated or corrupt.
  static KeySet Load(const std::string& path);

  bool scalable() const { return chain_.has_value(); }
  const Filter& plain() const { return *plain_; }
  const ScalableFilter& chain() const { return *chain_; }
  Filter& plain() { return *plain_; }
  ScalableFilter& chain() { return *chain_; }

  // Inserts the lines (Threads{T} for plain filters; a chain has no parallel form, and gets only
  // the lines it does not hold yet, as InsertNew).
  void Insert(const std::vector<std::string_view>& lines, unsigned threads);
  // Inserts lines and sets fresh[i] = 1 iff line i is new to the whole set (not held before the
  // call, not a repeat of an earlier line of the call): the dedup rule. Returns how many. A chain
  // is probed first (its insert only looks at the newest stage) and fed in pieces that cannot
  // cross a stage boundary, so a line is never new twice. Allocates scratch once (grows to the
  // largest batch).
  uint64_t InsertNew(const std::vector<std::string_view>& lines, uint8_t* fresh);
  // out[i] = 1 if key i may be present; returns the count.
  uint64_t Contains(const Keys& keys, uint8_t* out, unsigned threads) const;

  size_t size_bytes() const;
  double expected_fpp() const;
  double approximate_count() const;
  // {"kind":"plain"|"scalable","layout":...,"bits"/"k" or "stages",...,"bytes":...}
  Json Geometry() const;
  // Human-readable description (the info command), one "name: value" per line.
  std::string Describe() const;
  // Saves atomically (temp name + rename). Throws CliError (exit 1).
  void Save(const std::string& path) const;

 private:
  std::optional<Filter> plain_;
  std::optional<ScalableFilter> chain_;
  // InsertNew scratch for chains.
  std::vector<std::string_view> pending_;
  std::vector<uint32_t> index_;
  std::vector<uint8_t> hit_, new_, flags_;
};

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_KEY_SET_H_
