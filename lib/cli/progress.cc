// SPDX-License-Identifier: Apache-2.0
// Progress bar drawing (see progress.h).
#include "lib/cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace simdbloom {
namespace cli {
namespace {

std::string Bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char s[32];
  std::snprintf(s, sizeof(s), u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return s;
}

std::string Rate(double r) {
  char s[32];
  if (r >= 1e6) {
    std::snprintf(s, sizeof(s), "%.1fM", r / 1e6);
  } else if (r >= 1e3) {
    std::snprintf(s, sizeof(s), "%.1fk", r / 1e3);
  } else {
    std::snprintf(s, sizeof(s), "%.0f", r);
  }
  return s;
}

}  // namespace

Progress::Progress(bool enabled, std::string label, int64_t total_bytes)
    : enabled_(enabled), label_(std::move(label)), total_(total_bytes) {
  start_ = std::chrono::steady_clock::now();
  last_ = start_;
}

void Progress::Stage(std::string label, int64_t total_bytes) {
  label_ = std::move(label);
  total_ = total_bytes;
  start_ = std::chrono::steady_clock::now();
  last_ = start_;
}

void Progress::Draw(uint64_t bytes_done, uint64_t keys_done,
                    std::chrono::steady_clock::time_point now) {
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double kps = secs > 0 ? keys_done / secs : 0;
  char line[256];
  if (total_ > 0) {
    const double frac = std::min(1.0, static_cast<double>(bytes_done) / total_);
    constexpr int kWidth = 24;
    char bar[kWidth + 1];
    const int full = static_cast<int>(frac * kWidth);
    for (int i = 0; i < kWidth; ++i) bar[i] = i < full ? '#' : '.';
    bar[kWidth] = '\0';
    const double bps = secs > 0 ? bytes_done / secs : 0;
    const double eta = bps > 0 ? (total_ - static_cast<double>(bytes_done)) / bps : 0;
    std::snprintf(line, sizeof(line), "\r%s [%s] %3.0f%% %s / %s  %s keys/s  ETA %.0f s\x1b[K",
                  label_.c_str(), bar, frac * 100, Bytes(bytes_done).c_str(), Bytes(total_).c_str(),
                  Rate(kps).c_str(), eta);
  } else {
    std::snprintf(line, sizeof(line), "\r%s %s  %s keys/s\x1b[K", label_.c_str(),
                  Bytes(bytes_done).c_str(), Rate(kps).c_str());
  }
  (void)!::write(2, line, std::char_traits<char>::length(line));
  drawn_ = true;
}

void Progress::Finish() {
  if (drawn_) (void)!::write(2, "\r\x1b[K", 4);
  drawn_ = false;
}

}  // namespace cli
}  // namespace simdbloom
