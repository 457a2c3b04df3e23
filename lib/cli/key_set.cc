// SPDX-License-Identifier: Apache-2.0
// Plain filters and scalable chains behind one interface for the commands (see key_set.h).
#include "lib/cli/key_set.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <streambuf>
#include <string_view>
#include <vector>

#include "lib/cli/error.h"
#include "lib/cli/io.h"
#include "lib/cli/output.h"

namespace simdbloom {
namespace cli {

namespace {

// An input stream over a descriptor that cannot seek (a pipe, `<(cmd)`, /dev/stdin): read once,
// through a 64 KiB buffer, so the filter's loader checks the header before any payload arrives
// and bounds what a lying header costs (detail::ReadPayload). Peek() looks at the first bytes
// without consuming them.
class FdInBuf final : public std::streambuf {
 public:
  explicit FdInBuf(int fd) : fd_(fd), buf_(1 << 16) { setg(buf_.data(), buf_.data(), buf_.data()); }
  int error() const { return error_; }
  // The first n (<= the buffer) bytes, or fewer at the end of the input.
  std::string_view Peek(size_t n) {
    while (static_cast<size_t>(egptr() - gptr()) < n && Fill()) {
    }
    return std::string_view(gptr(), std::min(n, static_cast<size_t>(egptr() - gptr())));
  }

 protected:
  int_type underflow() override {
    if (gptr() == egptr() && !Fill()) return traits_type::eof();
    return traits_type::to_int_type(*gptr());
  }

 private:
  // Appends one read's bytes to the buffered ones; false at the end of the input or on an error.
  bool Fill() {
    const size_t have = static_cast<size_t>(egptr() - gptr());
    if (gptr() != buf_.data()) std::memmove(buf_.data(), gptr(), have);
    setg(buf_.data(), buf_.data(), buf_.data() + have);
    if (have == buf_.size()) return false;
    for (;;) {
      const ssize_t r = ::read(fd_, buf_.data() + have, buf_.size() - have);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) error_ = errno;
      if (r <= 0) return false;
      setg(buf_.data(), buf_.data(), buf_.data() + have + static_cast<size_t>(r));
      return true;
    }
  }
  int fd_;
  std::vector<char> buf_;
  int error_ = 0;
};

constexpr char kChainMagic[8] = {'S', 'I', 'M', 'D', 'B', 'S', 'C', 'L'};

}  // namespace

KeySet KeySet::Load(const std::string& path) {
  if (path == "-") throw CliError(kExitUsage, "a filter must be a file, not stdin");
  // Missing or a directory: the usual "PATH: cannot open: why". The file is opened once (a reader
  // racing an atomic replacement sees one file), its magic read, then the same stream loaded.
  const bool regular = RegularFileSize(path) >= 0;
  try {
    if (regular) {
      std::ifstream in(path, std::ios::binary);
      if (!in) throw CliError(kExitFailure, ErrnoMessage(path, "cannot open", errno));
      char magic[8] = {};
      in.read(magic, sizeof(magic));
      in.clear();
      in.seekg(0);
      if (std::memcmp(magic, kChainMagic, 8) == 0) return KeySet(ScalableFilter::load(in));
      return KeySet(Filter::load(in));
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw CliError(kExitFailure, ErrnoMessage(path, "cannot open", errno));
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    FdInBuf buf(fd);
    std::istream in(&buf);
    const bool chain = buf.Peek(8) == std::string_view(kChainMagic, 8);
    try {
      if (chain) return KeySet(ScalableFilter::load(in));
      return KeySet(Filter::load(in));
    } catch (const Error& e) {
      if (buf.error() != 0)
        throw CliError(kExitFailure, ErrnoMessage(path, "read error", buf.error()));
      throw;
    }
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kFormat) {
      throw CliError(kExitFailure,
                     path + ": not a simdbloom filter, or truncated/corrupt (" + e.what() + ")");
    }
    throw CliError(kExitFailure, path + ": " + e.what());
  }
}

void KeySet::Insert(const std::vector<std::string_view>& lines, unsigned threads) {
  const Keys keys(lines.data(), lines.size());
  if (chain_) {
    // As dedup does: a chain's insert would store again keys its older stages hold, filling
    // stages with repeats.
    flags_.resize(std::max(flags_.size(), lines.size()));
    InsertNew(lines, flags_.data());
  } else if (threads > 1) {
    plain_->insert(keys, Threads{threads});
  } else {
    plain_->insert(keys);
  }
}

uint64_t KeySet::Contains(const Keys& keys, uint8_t* out, unsigned threads) const {
  if (chain_) return chain_->contains(keys, out);
  return threads > 1 ? plain_->contains(keys, out, Threads{threads}) : plain_->contains(keys, out);
}

uint64_t KeySet::InsertNew(const std::vector<std::string_view>& lines, uint8_t* fresh) {
  if (plain_) return plain_->insert(Keys(lines.data(), lines.size()), fresh);
  ScalableFilter& c = *chain_;
  std::memset(fresh, 0, lines.size());
  uint64_t count = 0;
  size_t pos = 0;
  while (pos < lines.size()) {
    // A window no larger than the newest stage's room (or the next stage's capacity when it is
    // full): the chain cannot add a stage inside the insert below.
    const size_t last = c.stages() - 1;
    uint64_t room = c.stage_capacity(last) - c.stage_count(last);
    if (room == 0) room = c.stage_capacity(last + 1);
    const size_t n = static_cast<size_t>(std::min<uint64_t>(room, lines.size() - pos));
    hit_.resize(std::max(hit_.size(), n));
    c.contains(Keys(lines.data() + pos, n), hit_.data());  // sees every earlier window
    pending_.clear();
    index_.clear();
    for (size_t i = 0; i < n; ++i) {
      if (!hit_[i]) {
        pending_.push_back(lines[pos + i]);
        index_.push_back(static_cast<uint32_t>(pos + i));
      }
    }
    new_.resize(std::max(new_.size(), pending_.size()));
    c.insert(Keys(pending_.data(), pending_.size()), new_.data());
    for (size_t j = 0; j < pending_.size(); ++j) {
      if (new_[j]) {
        fresh[index_[j]] = 1;
        ++count;
      }
    }
    pos += n;
  }
  return count;
}

size_t KeySet::size_bytes() const { return chain_ ? chain_->size_bytes() : plain_->size_bytes(); }
double KeySet::expected_fpp() const {
  return chain_ ? chain_->expected_fpp() : plain_->expected_fpp();
}
double KeySet::approximate_count() const {
  return chain_ ? chain_->approximate_count() : plain_->approximate_count();
}

Json KeySet::Geometry() const {
  Json g;
  if (chain_) {
    g.Str("kind", "scalable")
        .Str("layout", layout_name(chain_->layout()))
        .Int("stages", chain_->stages())
        .Int("initial_capacity", chain_->initial_capacity())
        .Int("bytes", chain_->size_bytes());
  } else {
    g.Str("kind", "plain")
        .Str("layout", layout_name(plain_->layout()))
        .Int("bits", plain_->bit_count())
        .Int("k", plain_->num_hashes())
        .Int("bytes", plain_->size_bytes());
  }
  return g;
}

std::string KeySet::Describe() const {
  char text[512];
  std::string s;
  if (!chain_) {
    const Filter& f = *plain_;
    std::snprintf(text, sizeof(text),
                  "kind: plain\nlayout: %s\nbits: %llu\nk: %u\nbytes: %zu\nseed: %llu\n"
                  "inserted: %llu\napproximate count: %.0f\nfill: %.4f\nexpected FPR: %.6g\n",
                  layout_name(f.layout()), static_cast<unsigned long long>(f.bit_count()),
                  f.num_hashes(), f.size_bytes(), static_cast<unsigned long long>(f.seed()),
                  static_cast<unsigned long long>(f.inserted_count()), f.approximate_count(),
                  f.fill_ratio(), f.expected_fpp());
    return text;
  }
  const ScalableFilter& c = *chain_;
  std::snprintf(text, sizeof(text),
                "kind: scalable\nlayout: %s\nstages: %zu\nbytes: %zu\nseed: %llu\nfpp: %g\n"
                "growth: %g\ntightening: %g\ninitial capacity: %llu\ncount: %llu\n"
                "approximate count: %.0f\nbits per key: %.2f\nexpected FPR: %.6g\n",
                layout_name(c.layout()), c.stages(), c.size_bytes(),
                static_cast<unsigned long long>(c.seed()), c.fpp(), c.growth(), c.tightening(),
                static_cast<unsigned long long>(c.initial_capacity()),
                static_cast<unsigned long long>(c.count()), c.approximate_count(), c.bits_per_key(),
                c.expected_fpp());
  s = text;
  for (size_t i = 0; i < c.stages(); ++i) {
    const Filter& f = c.stage(i);
    std::snprintf(text, sizeof(text),
                  "stage %zu: bits %llu, k %u, capacity %llu, count %llu, fill %.4f, "
                  "expected FPR %.6g\n",
                  i, static_cast<unsigned long long>(f.bit_count()), f.num_hashes(),
                  static_cast<unsigned long long>(c.stage_capacity(i)),
                  static_cast<unsigned long long>(c.stage_count(i)), f.fill_ratio(),
                  f.expected_fpp());
    s += text;
  }
  return s;
}

void KeySet::Save(const std::string& path) const {
  if (chain_) {
    SaveAtomically(path, [&](std::ostream& out) { chain_->save(out); });
  } else {
    SaveAtomically(path, [&](std::ostream& out) { plain_->save(out); });
  }
}

}  // namespace cli
}  // namespace simdbloom
