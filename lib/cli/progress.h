// SPDX-License-Identifier: Apache-2.0
// A one-line progress bar on stderr: bytes done / total, keys/s, ETA; redrawn at most 10 times a
// second (the clock is read once per batch of lines). Off unless enabled (stderr a terminal, or
// --progress; never with --quiet).
#ifndef SIMDBLOOM_CLI_PROGRESS_H_
#define SIMDBLOOM_CLI_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace simdbloom {
namespace cli {

class Progress {
 public:
  // `total_bytes` < 0: unknown (a pipe): no percentage or ETA.
  Progress(bool enabled, std::string label, int64_t total_bytes);
  ~Progress() { Finish(); }
  // Called after each batch; draws if 100 ms passed since the last drawing.
  void Update(uint64_t bytes_done, uint64_t keys_done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    Draw(bytes_done, keys_done, now);
  }
  // Switches to the next stage (e.g. from file A to file B in intersect).
  void Stage(std::string label, int64_t total_bytes);
  // Clears the line (once).
  void Finish();
  bool enabled() const { return enabled_; }

 private:
  void Draw(uint64_t bytes_done, uint64_t keys_done, std::chrono::steady_clock::time_point now);
  bool enabled_;
  bool drawn_ = false;
  std::string label_;
  int64_t total_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_PROGRESS_H_
