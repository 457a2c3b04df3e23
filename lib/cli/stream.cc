// SPDX-License-Identifier: Apache-2.0
// Streaming for the commands (see stream.h).
#include "lib/cli/stream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

#include "lib/cli/io.h"

namespace simdbloom {
namespace cli {
namespace {

constexpr size_t kRangeBatch = 16384;

// Reads `reader` to its end in batches to fn(i, lines), adding to the shared totals; draws
// progress when given one (the calling thread's range).
void ReadAll(LineReader& reader, unsigned i, const std::function<void(unsigned, const Lines&)>& fn,
             std::atomic<uint64_t>& keys, std::atomic<uint64_t>& bytes, Progress* progress) {
  Lines lines;
  uint64_t done = 0;
  while (reader.Next(lines, kRangeBatch)) {
    fn(i, lines);
    keys += lines.size();
    bytes += reader.bytes_done() - done;
    done = reader.bytes_done();
    if (progress != nullptr) progress->Update(bytes.load(), keys.load());
  }
}

bool AllRegular(const std::vector<std::string>& files) {
  for (const auto& path : files) {
    if (RegularFileSize(path) < 0) return false;
  }
  return true;
}

}  // namespace

Pass StreamFileLines(const std::vector<std::string>& files, const Input& in, Progress& progress,
                     size_t batch, const std::function<void(size_t, const Lines&)>& fn,
                     const bool* stop) {
  Pass pass;
  Lines lines;
  lines.reserve(batch);
  for (size_t file = 0; file < files.size(); ++file) {
    LineReader reader(files[file], in.strip_cr, 0, in.delim);
    const uint64_t base = pass.bytes;
    while (reader.Next(lines, batch)) {
      fn(file, lines);
      pass.keys += lines.size();
      progress.Update(base + reader.bytes_done(), pass.keys);
      if (stop != nullptr && *stop) break;
    }
    pass.bytes = base + reader.bytes_done();
    if (stop != nullptr && *stop) break;
  }
  return pass;
}

Pass StreamLines(const std::vector<std::string>& files, const Input& in, Progress& progress,
                 size_t batch, const std::function<void(const Lines&)>& fn, const bool* stop) {
  return StreamFileLines(
      files, in, progress, batch, [&](size_t, const Lines& lines) { fn(lines); }, stop);
}

bool ReadRanges(const std::vector<std::string>& files, const Input& in, Progress& progress,
                Pass& pass, const std::function<void(unsigned, const Lines&)>& fn) {
  if (!AllRegular(files)) return false;
  const unsigned t = in.threads;
  std::atomic<uint64_t> bytes{0}, keys{0};
  for (const auto& path : files) {
    const int64_t size = RegularFileSize(path);
    if (size == 0) {
      // A regular file whose stat size is 0 may still have lines (/proc, sysfs): streamed on this
      // thread, as range 0.
      LineReader reader(path, in.strip_cr, 0, in.delim);
      ReadAll(reader, 0, fn, keys, bytes, &progress);
      continue;
    }
    std::vector<std::exception_ptr> errors(t);
    std::vector<std::thread> threads;
    std::atomic<unsigned> running{t};
    for (unsigned i = 0; i < t; ++i) {
      threads.emplace_back([&, i] {
        try {
          LineReader reader(path, in.strip_cr, 0, in.delim);
          const uint64_t begin = static_cast<uint64_t>(size) * i / t;
          const uint64_t limit = static_cast<uint64_t>(size) * (i + 1) / t;
          if (begin < limit) {
            reader.SetRange(begin, limit);
            ReadAll(reader, i, fn, keys, bytes, nullptr);
          }
        } catch (...) {
          errors[i] = std::current_exception();
        }
        --running;
      });
    }
    while (running.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      progress.Update(bytes.load(), keys.load());
    }
    for (auto& th : threads) th.join();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
  }
  pass.keys = keys.load();
  pass.bytes = bytes.load();
  return true;
}

bool InsertRanges(const std::vector<std::string>& files, const Input& in, Progress& progress,
                  Filter& f, Pass& pass) {
  if (!AllRegular(files)) return false;
  std::vector<Filter> copies;
  for (unsigned i = 1; i < in.threads; ++i) {
    copies.push_back(
        Filter::with_bits(f.bit_count(), f.num_hashes(), f.layout(), f.seed(), f.key_type()));
  }
  ReadRanges(files, in, progress, pass, [&](unsigned i, const Lines& l) {
    (i == 0 ? f : copies[i - 1]).insert(Keys(l.data(), l.size()));
  });
  for (const Filter& copy : copies) f.merge(copy);
  return true;
}

int64_t TotalBytes(const std::vector<std::string>& files) {
  int64_t total = 0;
  for (const auto& f : files) {
    const int64_t s = RegularFileSize(f);
    if (s < 0) return -1;
    total += s;
  }
  return total;
}

size_t BatchFor(const Input& in) {
  return in.threads > 1 ? std::min<size_t>(size_t{65536} * in.threads, size_t{1} << 20) : 16384;
}

}  // namespace cli
}  // namespace simdbloom
