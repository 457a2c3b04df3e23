// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): the bulk driver every kind's bulk calls share. A call validates its
// keys (ValidateKeys), makes their KeySource (SourceOf), then runs its kernel over the keys in
// pieces: the prefetch tuner's trials (DistanceTuner, lib/core/prefetch.h) and, for byte strings,
// chunks hashed ahead (OverHashedChunks); results of each piece land in their place in the
// caller's output (ResultsOfPiece). Filter (bulk.cc), CountingFilter, SpatialFilter and the
// shifting set filters (lib/kinds/) run through it.
#ifndef SIMDBLOOM_LIB_CORE_DRIVER_H_
#define SIMDBLOOM_LIB_CORE_DRIVER_H_

#include <cstddef>
#include <cstdint>

#include "kernels/interface.h"
#include "lib/core/key_source.h"
#include "lib/core/prefetch.h"

namespace simdbloom {
namespace detail {

static_assert(DistanceTuner::kMinTrialKeys % kStringChunk == 0, "trials end at chunk ends");
static_assert(kStringChunk % 8 == 0 && DistanceTuner::kMinTrialKeys % 8 == 0,
              "bitmap pieces start at whole bytes");

// Keys from `begin` on of a source the kernels read in place (u64, u32, pre-hashed; no sel).
inline KeySource SliceSource(KeySource src, size_t begin) {
  const size_t width = src.kind == KeyKind::kU32 ? 4 : 8;
  src.keys = static_cast<const uint8_t*>(src.keys) + begin * width;
  return src;
}

// Runs run(source, begin, m) over the n keys of src in the pieces the tuner asks for (one piece
// when it is inactive), byte strings in hashed chunks; returns the sum of its results.
template <class Run>
inline uint64_t OverPieces(const KeySource& src, size_t n, DistanceTuner& tuner, const Run& run) {
  if (ChunkStrings(src, n)) {
    return OverHashedChunks(
        src, n, [&](size_t begin, size_t count) { return tuner.Piece(begin, count); }, run);
  }
  if (!tuner.active()) return run(src, 0, n);
  uint64_t total = 0;
  for (size_t begin = 0, m = 0; begin < n; begin += m) {
    m = tuner.Piece(begin, n);
    total += run(SliceSource(src, begin), begin, m);
  }
  return total;
}

// OverPieces under a tuner of the call's own, for the kinds: the tuner tunes *prefetch_distance
// (the one the run reads) for n keys on t when the call is large enough (lib/core/prefetch.h).
template <class Run>
uint64_t OverTunedPieces(const TuneTarget& t, const KeySource& src, size_t n,
                         uint32_t* prefetch_distance, const Run& run) {
  DistanceTuner tuner(t, n, false, prefetch_distance);
  return OverPieces(src, n, tuner, run);
}

// The results of keys [begin, begin + m) of a call whose results go to `out` in form `result`:
// calls contains(piece_out) (a kernel call writing the piece's results from piece_out on) with
// the piece's place in `out`; a selection's indices, which the kernel counts from 0, are shifted
// by `begin` and appended after the *selected hits of earlier pieces. Returns the piece's hits.
// Pieces must start at multiples of 8 keys (bitmap bytes).
template <class Contains>
uint64_t ResultsOfPiece(ResultKind result, void* out, size_t begin, uint64_t* selected,
                        const Contains& contains) {
  switch (result) {
    case ResultKind::kBytes:
      return contains(static_cast<uint8_t*>(out) + begin);
    case ResultKind::kBitmap:
      return contains(static_cast<uint8_t*>(out) + begin / 8);
    case ResultKind::kSelection: {
      uint32_t* dst = static_cast<uint32_t*>(out) + *selected;
      const uint64_t c = contains(dst);
      if (begin != 0) {
        for (uint64_t i = 0; i < c; ++i) dst[i] += static_cast<uint32_t>(begin);
      }
      *selected += c;
      return c;
    }
  }
  return 0;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_CORE_DRIVER_H_
