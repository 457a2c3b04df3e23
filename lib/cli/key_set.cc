// SPDX-License-Identifier: Apache-2.0
// Plain, scalable and counting filters behind one interface for the commands, and the loader of
// every kind of filter file (see key_set.h).
#include "lib/cli/key_set.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
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
constexpr char kCountingMagic[8] = {'S', 'B', 'C', 'O', 'U', 'N', 'T', '1'};
constexpr char kSpatialMagic[8] = {'S', 'I', 'M', 'D', 'B', 'S', 'B', 'F'};
constexpr char kShbfAMagic[8] = {'S', 'I', 'M', 'D', 'S', 'H', 'B', 'A'};
constexpr char kShbfXMagic[8] = {'S', 'I', 'M', 'D', 'S', 'H', 'B', 'X'};

KeyType g_line_key_type = KeyType::kBytes;
bool g_line_key_type_given = false;

// Guava's writeTo form starts with its strategy ordinal (0 or 1), k (1..255) and a positive
// big-endian int32 count of longs; every simdbloom file starts with 'S'. (Anything else, zeros
// included, goes on to the simdbloom loaders and their "bad magic".)
bool LooksLikeGuava(std::string_view magic) {
  if (magic.size() < 6) return false;
  const auto b = [&](size_t i) { return static_cast<uint8_t>(magic[i]); };
  const uint32_t count = uint32_t{b(2)} << 24 | uint32_t{b(3)} << 16 | uint32_t{b(4)} << 8 | b(5);
  return b(0) <= 1 && b(1) != 0 && count != 0 && count < (uint32_t{1} << 31);
}

// Guava's writeTo bytes from `in`: the 6-byte header, then the longs it claims, read in 4 MiB
// pieces (memory follows the bytes present, not the claim), then nothing more.
Filter LoadGuava(std::istream& in) {
  std::vector<uint8_t> bytes;
  constexpr size_t kPiece = size_t{4} << 20;
  while (in) {
    const size_t have = bytes.size();
    bytes.resize(have + kPiece);
    in.read(reinterpret_cast<char*>(bytes.data() + have), static_cast<std::streamsize>(kPiece));
    bytes.resize(have + static_cast<size_t>(in.gcount()));
    if (in.gcount() == 0) break;
  }
  return Filter::from_guava(bytes.data(), bytes.size(), g_line_key_type);
}

// Loads the filter whose first bytes are `magic` from `in` (positioned at its start).
StoredFilter LoadKind(std::istream& in, std::string_view magic) {
  StoredFilter s;
  auto is = [&](const char(&m)[8]) { return magic == std::string_view(m, 8); };
  if (LooksLikeGuava(magic)) {
    // Guava's bytes do not record which funnel made them: guessing would answer wrongly in
    // silence (a filter of longs asked lines as text).
    if (!g_line_key_type_given) {
      throw CliError(kExitUsage,
                     "a Guava filter (writeTo bytes) does not say which funnel made it: give "
                     "--key-type bytes (stringFunnel(UTF_8), byteArrayFunnel), int64 "
                     "(longFunnel) or int32 (integerFunnel)");
    }
    s.kind = FileKind::kPlain;
    s.set.emplace(KeySet::Guava(LoadGuava(in)));
    return s;
  }
  // Every kind through its stream loader: the header, then the payload it claims in 4 MiB pieces
  // (FORMAT.md), so memory follows the bytes present, never the claim nor an endless input.
  if (is(kShbfAMagic)) {
    s.kind = FileKind::kShbfA;
    s.shbf_a.emplace(ShiftingAssociation::load(in));
  } else if (is(kShbfXMagic)) {
    s.kind = FileKind::kShbfX;
    s.shbf_x.emplace(ShiftingMultiplicity::load(in));
  } else if (is(kSpatialMagic)) {
    s.kind = FileKind::kSpatial;
    s.spatial.emplace(SpatialFilter::load(in));
  } else if (is(kChainMagic)) {
    s.kind = FileKind::kScalable;
    s.set.emplace(ScalableFilter::load(in));
  } else if (is(kCountingMagic)) {
    s.kind = FileKind::kCounting;
    s.set.emplace(CountingFilter::load(in));
  } else {
    s.kind = FileKind::kPlain;
    s.set.emplace(Filter::load(in));  // "bad magic" for anything else
  }
  return s;
}

std::string Fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Fmt(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  return text;
}

}  // namespace

void SetLineKeyType(KeyType type, bool given) {
  g_line_key_type = type;
  g_line_key_type_given = given;
}
KeyType LineKeyType() { return g_line_key_type; }

void LinesAsIntegers(const std::string_view* lines, size_t n, bool insert,
                     std::vector<int64_t>* out) {
  out->resize(n);
  const bool int32 = g_line_key_type == KeyType::kInt32;
  for (size_t i = 0; i < n; ++i) {
    const std::string_view l = lines[i];
    const bool negative = !l.empty() && l[0] == '-';
    const size_t start = !l.empty() && (l[0] == '-' || l[0] == '+') ? 1 : 0;
    bool ok = l.size() > start && l.size() - start <= 20;
    uint64_t v = 0;
    for (size_t j = start; ok && j < l.size(); ++j) {
      const auto d = static_cast<unsigned>(l[j] - '0');
      ok = d <= 9 && v <= (UINT64_MAX - d) / 10;
      v = v * 10 + d;
    }
    ok = ok && (!negative || v <= (uint64_t{1} << 63));
    if (!ok) {
      throw CliError(kExitUsage, "line '" + std::string(l.substr(0, 80)) +
                                     "' is not a decimal integer (-9223372036854775808 .. "
                                     "18446744073709551615; --key-type " +
                                     key_type_name(g_line_key_type) + ")");
    }
    const uint64_t bits = negative ? uint64_t{0} - v : v;
    // int32 filters hold -2^31 .. 2^32 - 1 (lib/FORMAT.md, "Keys").
    const bool fits32 = negative ? v <= (uint64_t{1} << 31) : v < (uint64_t{1} << 32);
    if (int32 && !fits32) {
      if (insert) {
        throw CliError(kExitUsage, "line '" + std::string(l) +
                                       "' does not fit --key-type int32 (-2147483648 .. "
                                       "4294967295)");
      }
      (*out)[i] = INT64_MAX;  // a value no int32 filter holds: absent
      continue;
    }
    (*out)[i] = static_cast<int64_t>(bits);
  }
}

void LinesAsIntegers(const std::vector<std::string_view>& lines, bool insert,
                     std::vector<int64_t>* out) {
  LinesAsIntegers(lines.data(), lines.size(), insert, out);
}

const char* KindName(FileKind kind) {
  // In FileKind's order (key_set.h).
  static constexpr const char* kNames[] = {"plain",   "scalable", "counting",
                                           "spatial", "shbf_a",   "shbf_x"};
  static_assert(std::size(kNames) == static_cast<size_t>(FileKind::kShbfX) + 1,
                "kNames lacks a FileKind");
  const auto i = static_cast<size_t>(kind);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

void RefuseKind(const std::string& cmd, const std::string& path, FileKind kind,
                const std::string& what) {
  throw CliError(kExitUsage, cmd + ": " + path + " is a " + KindName(kind) + " filter; " + what);
}

StoredFilter StoredFilter::Load(const std::string& path) {
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
      const std::string_view seen(magic, static_cast<size_t>(in.gcount()));
      in.clear();
      in.seekg(0);
      return LoadKind(in, seen);
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw CliError(kExitFailure, ErrnoMessage(path, "cannot open", errno));
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    FdInBuf buf(fd);
    std::istream in(&buf);
    const std::string magic(buf.Peek(8));
    try {
      return LoadKind(in, magic);
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

KeySet KeySet::Load(const std::string& path, const std::string& cmd) {
  StoredFilter s = StoredFilter::Load(path);
  if (!s.set) {
    RefuseKind(cmd, path, s.kind,
               "not a set of keys (" + cmd + " reads plain, scalable and counting filters" +
                   (s.kind == FileKind::kSpatial ? "; simdbloom classify reads spatial ones)"
                                                 : "; simdbloom info describes it)"));
  }
  return std::move(*s.set);
}

void KeySet::Insert(const std::vector<std::string_view>& lines, unsigned threads) {
  std::vector<int64_t> ints;
  const bool integers = g_line_key_type != KeyType::kBytes;
  if (integers) LinesAsIntegers(lines, true, &ints);
  const Keys keys = integers ? Keys(ints) : Keys(lines.data(), lines.size());
  if (chain_) {
    // As dedup does: a chain's insert would store again keys its older stages hold, filling
    // stages with repeats.
    flags_.resize(std::max(flags_.size(), lines.size()));
    InsertNew(lines, flags_.data());
  } else if (counting_) {
    counting_->insert(keys);
  } else if (threads > 1) {
    plain_->insert(keys, Threads{threads});
  } else {
    plain_->insert(keys);
  }
}

uint64_t KeySet::Contains(const Keys& given, uint8_t* out, unsigned threads) const {
  std::vector<int64_t> ints;
  const bool integers = g_line_key_type != KeyType::kBytes && given.kind() == Keys::Kind::kStrings;
  if (integers) {
    LinesAsIntegers(static_cast<const std::string_view*>(given.keys()), given.size(), false, &ints);
  }
  const Keys keys = integers ? Keys(ints) : given;
  if (chain_) return chain_->contains(keys, out);
  if (counting_) return counting_->contains(keys, out);
  return threads > 1 ? plain_->contains(keys, out, Threads{threads}) : plain_->contains(keys, out);
}

uint64_t KeySet::InsertNew(const std::vector<std::string_view>& lines, uint8_t* fresh) {
  if (plain_) return plain_->insert(Keys(lines.data(), lines.size()), fresh);
  if (counting_) return counting_->insert(Keys(lines.data(), lines.size()), fresh);
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

KeyType KeySet::key_type() const {
  return chain_ ? chain_->key_type() : counting_ ? counting_->key_type() : plain_->key_type();
}

void KeySet::set_key_type(KeyType type) {
  if (chain_) {
    chain_->set_key_type(type);
  } else if (counting_) {
    counting_->set_key_type(type);
  } else {
    plain_->set_key_type(type);
  }
}

void CheckTakesLines(const std::string& cmd, const std::string& path, KeyType type) {
  const bool integer = type == KeyType::kInt64 || type == KeyType::kInt32;
  if (g_line_key_type == KeyType::kBytes) {
    if (!integer) return;
    throw CliError(kExitUsage, cmd + ": " + path + " holds " + key_type_name(type) +
                                   " keys (integers); lines of text are bytes keys, which it "
                                   "cannot answer (--key-type " +
                                   key_type_name(type) + " reads each line as a decimal integer)");
  }
  if (type == g_line_key_type || type == KeyType::kNone) return;
  throw CliError(kExitUsage, cmd + ": " + path + " holds " + key_type_name(type) +
                                 " keys; --key-type " + key_type_name(g_line_key_type) +
                                 " reads lines as another kind of key");
}

size_t KeySet::size_bytes() const {
  return chain_ ? chain_->size_bytes() : counting_ ? counting_->size_bytes() : plain_->size_bytes();
}
double KeySet::expected_fpp() const {
  return chain_      ? chain_->expected_fpp()
         : counting_ ? counting_->to_filter().expected_fpp()
                     : plain_->expected_fpp();
}
double KeySet::approximate_count() const {
  return chain_      ? chain_->approximate_count()
         : counting_ ? counting_->to_filter().approximate_count()
                     : plain_->approximate_count();
}

Json KeySet::Geometry() const {
  Json g;
  if (chain_) {
    g.Str("kind", "scalable")
        .Str("layout", layout_name(chain_->layout()))
        .Int("stages", chain_->stages())
        .Int("initial_capacity", chain_->initial_capacity())
        .Int("bytes", chain_->size_bytes());
  } else if (counting_) {
    g.Str("kind", "counting")
        .Str("layout", counting_layout_name(counting_->layout()))
        .Int("counters", counting_->counter_count())
        .Int("k", counting_->num_hashes())
        .Int("bytes", counting_->size_bytes());
  } else {
    g.Str("kind", "plain");
    if (guava_) g.Str("format", "guava");
    g.Str("layout", layout_name(plain_->layout()))
        .Int("bits", plain_->bit_count())
        .Int("k", plain_->num_hashes())
        .Int("bytes", plain_->size_bytes());
  }
  return g;
}

std::string KeySet::Describe() const {
  if (plain_) {
    const Filter& f = *plain_;
    std::string d =
        Fmt("kind: plain\nlayout: %s\nbits: %llu\nk: %u\nbytes: %zu\nseed: %llu\n"
            "inserted: %llu\napproximate count: %.0f\nfill: %.4f\nexpected FPR: %.6g\n",
            layout_name(f.layout()), static_cast<unsigned long long>(f.bit_count()), f.num_hashes(),
            f.size_bytes(), static_cast<unsigned long long>(f.seed()),
            static_cast<unsigned long long>(f.inserted_count()), f.approximate_count(),
            f.fill_ratio(), f.expected_fpp());
    if (guava_) {  // after "kind: plain"
      d.insert(d.find('\n') + 1,
               Fmt("format: guava (Guava's BloomFilter writeTo bytes, strategy %s)\n",
                   f.layout() == Layout::kGuava ? "MURMUR128_MITZ_64" : "MURMUR128_MITZ_32"));
    }
    return d;
  }
  if (counting_) {
    const CountingFilter& c = *counting_;
    const Filter bits = c.to_filter();
    return Fmt(
        "kind: counting\nlayout: %s\ncounters: %llu\nk: %u\nbytes: %zu\nseed: %llu\n"
        "present: %llu\nsaturated counters: %llu\napproximate count: %.0f\nfill: %.4f\n"
        "expected FPR: %.6g\n",
        counting_layout_name(c.layout()), static_cast<unsigned long long>(c.counter_count()),
        c.num_hashes(), c.size_bytes(), static_cast<unsigned long long>(c.seed()),
        static_cast<unsigned long long>(c.size()),
        static_cast<unsigned long long>(c.saturated_count()), bits.approximate_count(),
        bits.fill_ratio(), bits.expected_fpp());
  }
  const ScalableFilter& c = *chain_;
  std::string s =
      Fmt("kind: scalable\nlayout: %s\nstages: %zu\nbytes: %zu\nseed: %llu\nfpp: %g\n"
          "growth: %g\ntightening: %g\ninitial capacity: %llu\ncount: %llu\n"
          "approximate count: %.0f\nbits per key: %.2f\nexpected FPR: %.6g\n",
          layout_name(c.layout()), c.stages(), c.size_bytes(),
          static_cast<unsigned long long>(c.seed()), c.fpp(), c.growth(), c.tightening(),
          static_cast<unsigned long long>(c.initial_capacity()),
          static_cast<unsigned long long>(c.count()), c.approximate_count(), c.bits_per_key(),
          c.expected_fpp());
  for (size_t i = 0; i < c.stages(); ++i) {
    const Filter& f = c.stage(i);
    s +=
        Fmt("stage %zu: bits %llu, k %u, capacity %llu, count %llu, fill %.4f, "
            "expected FPR %.6g\n",
            i, static_cast<unsigned long long>(f.bit_count()), f.num_hashes(),
            static_cast<unsigned long long>(c.stage_capacity(i)),
            static_cast<unsigned long long>(c.stage_count(i)), f.fill_ratio(), f.expected_fpp());
  }
  return s;
}

void KeySet::Stats(Json& j) const {
  if (chain_) {
    const ScalableFilter& c = *chain_;
    j.Int("seed", c.seed())
        .Num("fpp", c.fpp())
        .Num("growth", c.growth())
        .Num("tightening", c.tightening())
        .Int("count", c.count())
        .Num("bits_per_key", c.bits_per_key())
        .Num("approximate_count", c.approximate_count())
        .Num("expected_fpp", c.expected_fpp());
  } else if (counting_) {
    const CountingFilter& c = *counting_;
    const Filter bits = c.to_filter();
    j.Int("seed", c.seed())
        .Int("present", c.size())
        .Int("saturated", c.saturated_count())
        .Num("fill", bits.fill_ratio())
        .Num("approximate_count", bits.approximate_count())
        .Num("expected_fpp", bits.expected_fpp());
  } else {
    const Filter& f = *plain_;
    j.Int("seed", f.seed())
        .Int("inserted", f.inserted_count())
        .Num("fill", f.fill_ratio())
        .Num("approximate_count", f.approximate_count())
        .Num("expected_fpp", f.expected_fpp());
  }
}

void KeySet::Save(const std::string& path) const {
  if (guava_) {
    const std::vector<uint8_t> bytes = plain_->to_guava();
    SaveAtomically(path, [&](std::ostream& out) {
      out.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size()));
    });
  } else if (chain_) {
    SaveAtomically(path, [&](std::ostream& out) { chain_->save(out); });
  } else if (counting_) {
    SaveAtomically(path, [&](std::ostream& out) { counting_->save(out); });
  } else {
    SaveAtomically(path, [&](std::ostream& out) { plain_->save(out); });
  }
}

Json SpatialGeometry(const SpatialFilter& f) {
  Json g;
  g.Str("kind", "spatial")
      .Int("areas", f.num_areas())
      .Int("cells", f.num_cells())
      .Int("cell_bytes", f.cell_bytes())
      .Int("k", f.num_hashes())
      .Int("bytes", f.size_bytes());
  return g;
}

std::string EscapedName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  const auto octal = [&](unsigned char b) {
    const char digits[] = {'\\', static_cast<char>('0' + (b >> 6)),
                           static_cast<char>('0' + ((b >> 3) & 7)),
                           static_cast<char>('0' + (b & 7))};
    out.append(digits, 4);
  };
  for (size_t i = 0; i < name.size();) {
    const auto b = static_cast<unsigned char>(name[i]);
    if (b == '\\') {
      out += "\\\\";
    } else if (b == '\n') {
      out += "\\n";
    } else if (b == '\t') {
      out += "\\t";
    } else if (b == '\r') {
      out += "\\r";
    } else if (b < 0x20 || b == 0x7F) {
      octal(b);
    } else if (b < 0x80) {
      out += static_cast<char>(b);
    } else {
      // A well-formed UTF-8 sequence (RFC 3629) is kept, but for the C1 controls (U+0080..009F);
      // any other byte is written in octal.
      size_t n = 0;
      unsigned char lo = 0x80, hi = 0xBF;
      if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
      } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        if (b == 0xE0) lo = 0xA0;
        if (b == 0xED) hi = 0x9F;
      } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        if (b == 0xF0) lo = 0x90;
        if (b == 0xF4) hi = 0x8F;
      }
      bool ok = n != 0 && name.size() - i >= n;
      for (size_t j = 1; ok && j < n; ++j) {
        const auto c = static_cast<unsigned char>(name[i + j]);
        ok = j == 1 ? c >= lo && c <= hi : c >= 0x80 && c <= 0xBF;
      }
      if (ok && b == 0xC2 && static_cast<unsigned char>(name[i + 1]) < 0xA0) ok = false;
      if (!ok) {
        octal(b);
        ++i;
        continue;
      }
      out.append(name.data() + i, n);
      i += n;
      continue;
    }
    ++i;
  }
  return out;
}

std::string AreaLabelText(const SpatialFilter& f, uint16_t label) {
  if (label == 0) return "-";
  const std::string_view name = f.area_name(label);
  return name.empty() ? std::to_string(label) : EscapedName(name);
}

KeyType StoredFilter::key_type() const {
  if (set) return set->key_type();
  if (spatial) return spatial->key_type();
  return shbf_a ? shbf_a->key_type() : shbf_x->key_type();
}

std::string StoredFilter::Describe() const {
  // "kind: ...", then the key type, then the kind's own lines.
  std::string s = DescribeKind();
  const size_t eol = s.find('\n');
  s.insert(eol == std::string::npos ? s.size() : eol + 1,
           std::string("key type: ") + key_type_name(key_type()) + "\n");
  return s;
}

std::string StoredFilter::DescribeKind() const {
  if (set) return set->Describe();
  if (spatial) {
    const SpatialFilter& f = *spatial;
    const SpatialStats st = f.stats(true);
    std::string s =
        Fmt("kind: spatial\nareas: %u\ncells: %llu\ncell bytes: %u\nk: %u\nbytes: %zu\nseed: %llu\n"
            "keys: %llu\nhighest label: %u\nsparsity: %.4f\nexpected FPR: %.6g\n"
            "a-priori FPR: %.6g\n",
            f.num_areas(), static_cast<unsigned long long>(f.num_cells()), f.cell_bytes(),
            f.num_hashes(), f.size_bytes(), static_cast<unsigned long long>(f.seed()),
            static_cast<unsigned long long>(st.members), f.current_label(), st.sparsity, st.fpp,
            st.apriori_fpp);
    for (const SpatialAreaStats& a : st.areas) {
      s += Fmt("area %u: keys %llu, cells %llu, emersion %.4f, FPR %.6g, ISEP %.6g", a.label,
               static_cast<unsigned long long>(a.members), static_cast<unsigned long long>(a.cells),
               a.emersion, a.fpp, a.apriori_isep);
      const std::string_view name = f.area_name(a.label);
      if (!name.empty()) s += ", name " + EscapedName(name);
      s += "\n";
    }
    return s;
  }
  if (shbf_a) {
    const ShiftingAssociation& f = *shbf_a;
    return Fmt(
        "kind: shbf_a\nbits: %llu\nblocks: %llu\nk: 8\nbytes: %llu\nseed: %llu\n"
        "inserted: %llu\nclear answer probability: %.6g\nexpected FPR: %.6g\n",
        static_cast<unsigned long long>(f.bit_count()),
        static_cast<unsigned long long>(f.num_blocks()),
        static_cast<unsigned long long>(f.bit_count() / 8),
        static_cast<unsigned long long>(f.seed()), static_cast<unsigned long long>(f.items()),
        f.clear_answer_probability(), f.false_positive_probability());
  }
  const ShiftingMultiplicity& f = *shbf_x;
  return Fmt(
      "kind: shbf_x\nmax count: %u\nbits: %llu\nblocks: %llu\nk: 8\nbytes: %llu\n"
      "seed: %llu\ninserted: %llu\ncorrect count probability at 1: %.6g\n"
      "correct count probability at %u: %.6g\nexpected FPR: %.6g\n",
      f.max_count(), static_cast<unsigned long long>(f.bit_count()),
      static_cast<unsigned long long>(f.num_blocks()),
      static_cast<unsigned long long>(f.bit_count() / 8), static_cast<unsigned long long>(f.seed()),
      static_cast<unsigned long long>(f.items()), f.correct_probability(1), f.max_count(),
      f.correct_probability(f.max_count()), f.false_positive_probability());
}

void StoredFilter::Info(Json& j) const {
  const char* key_type = key_type_name(this->key_type());
  if (set) {
    j.Obj("filter", set->Geometry()).Str("key_type", key_type);
    set->Stats(j);
    return;
  }
  if (spatial) {
    const SpatialFilter& f = *spatial;
    const SpatialStats st = f.stats(true);
    std::vector<Json> areas;
    for (const SpatialAreaStats& a : st.areas) {
      Json area;
      area.Int("label", a.label)
          .Str("name", f.area_name(a.label))
          .Int("members", a.members)
          .Int("cells", a.cells)
          .Int("cells_written", a.cells_written)
          .Num("emersion", a.emersion)
          .Num("expected_emersion", a.expected_emersion)
          .Num("fpp", a.fpp)
          .Num("apriori_fpp", a.apriori_fpp)
          .Num("apriori_isep", a.apriori_isep);
      areas.push_back(area);
    }
    j.Obj("filter", SpatialGeometry(f))
        .Str("key_type", key_type)
        .Int("seed", f.seed())
        .Int("members", st.members)
        .Int("highest_label", f.current_label())
        .Num("sparsity", st.sparsity)
        .Num("apriori_fpp", st.apriori_fpp)
        .Num("expected_fpp", st.fpp)
        .Arr("areas", areas);
    return;
  }
  const uint64_t bits = shbf_a ? shbf_a->bit_count() : shbf_x->bit_count();
  Json g;
  g.Str("kind", KindName(kind))
      .Int("bits", bits)
      .Int("blocks", bits / 512)
      .Int("k", 8)
      .Int("bytes", bits / 8);
  if (shbf_x) g.Int("max_count", shbf_x->max_count());
  j.Obj("filter", g).Str("key_type", key_type);
  if (shbf_a) {
    j.Int("seed", shbf_a->seed())
        .Int("inserted", shbf_a->items())
        .Num("clear_answer_probability", shbf_a->clear_answer_probability())
        .Num("expected_fpp", shbf_a->false_positive_probability());
  } else {
    j.Int("seed", shbf_x->seed())
        .Int("inserted", shbf_x->items())
        .Num("correct_probability_1", shbf_x->correct_probability(1))
        .Num("correct_probability_max", shbf_x->correct_probability(shbf_x->max_count()))
        .Num("expected_fpp", shbf_x->false_positive_probability());
  }
}

}  // namespace cli
}  // namespace simdbloom
