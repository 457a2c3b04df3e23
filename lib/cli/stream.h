// SPDX-License-Identifier: Apache-2.0
// Streaming for the commands: the lines of input files cut into batches (io.h's LineReader) and
// handed to a command's function, which passes them to the library's bulk calls, with Threads{T}
// where a batch is probed in parallel. Only build and query --count read a file on several
// threads (ReadRanges): the line cutting itself is the work to share there, and the library's
// Threads only share keys already cut (see InsertRanges).
#ifndef SIMDBLOOM_CLI_STREAM_H_
#define SIMDBLOOM_CLI_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/cli/progress.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace cli {

// How the keys are read (-z, --strip-cr) and how many threads a command may use (-t).
struct Input {
  bool strip_cr = false;
  char delim = '\n';  // '\0' with -z/--null
  unsigned threads = 1;
};

// Totals of one streaming pass.
struct Pass {
  uint64_t keys = 0;
  uint64_t bytes = 0;
};

using Lines = std::vector<std::string_view>;

// Streams the lines of `files` in batches of at most `batch` to fn(file, lines) (file: the index
// in `files`), drawing progress. Stops after the batch that sets *stop (query -q: the first hit
// answers), leaving the rest of the input unread.
Pass StreamFileLines(const std::vector<std::string>& files, const Input& in, Progress& progress,
                     size_t batch, const std::function<void(size_t, const Lines&)>& fn,
                     const bool* stop = nullptr);
// StreamFileLines for fn(lines).
Pass StreamLines(const std::vector<std::string>& files, const Input& in, Progress& progress,
                 size_t batch, const std::function<void(const Lines&)>& fn,
                 const bool* stop = nullptr);

// Runs fn(i, lines) on in.threads threads over regular files: each file is cut into T byte ranges
// (a line belongs to the range it starts in), thread i reads its range through its own mapped
// LineReader (one window each). Progress is drawn by the calling thread. Returns false (nothing
// done) when an input is not a regular file. An exception in a thread is rethrown after all are
// joined.
bool ReadRanges(const std::vector<std::string>& files, const Input& in, Progress& progress,
                Pass& pass, const std::function<void(unsigned, const Lines&)>& fn);

// build (and intersect's A) with -t T on regular files: ReadRanges, thread i inserting into its
// own filter (thread 0 into `f`, the others into empty copies of its geometry), the copies ORed
// into `f` at the end: the bytes equal a single-threaded build's. Memory: T filters and T windows.
// Why not Filter::insert(keys, Threads{T}) on the batches one thread cuts (the path of a pipe):
// that shares the hashing and the inserts but not the reading and cutting of the lines
// (perf/README.md, "The command line"), and per call it either makes private copies (small
// filters: a batch of fewer keys than size_bytes() / 8 on one thread, a larger one zeroing and
// ORing T - 1 copies per batch) or splits the keys by block (blocked layouts, large filters:
// threads that meet once per 64K keys). Here each thread reads and cuts its own range and the
// copies are made once.
// Returns false (nothing done) as ReadRanges.
bool InsertRanges(const std::vector<std::string>& files, const Input& in, Progress& progress,
                  Filter& f, Pass& pass);

// The bytes of `files` for progress: -1 when one is not a regular file (progress then shows bytes
// and keys/s only).
int64_t TotalBytes(const std::vector<std::string>& files);

// Lines per bulk call: big enough to amortize the call, small enough that the batch's bytes
// (~50 B a URL) stay in L2 between line cutting and hashing. Parallel calls need 32768 keys per
// thread before they start threads.
size_t BatchFor(const Input& in);

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_STREAM_H_
