// SPDX-License-Identifier: Apache-2.0
// Plain, scalable and counting filters behind one interface for the commands, and the loader of
// every kind of filter file (see key_set.h); what info prints of them is in describe.cc.
#include "lib/cli/key_set.h"

#include <errno.h>
#include <fcntl.h>
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

KeyType g_line_key_type = KeyType::kBytes;
bool g_line_key_type_given = false;

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

// A set of keys (plain, scalable, counting) from its kind's stream loader.
KeySet LoadSet(FileKind kind, std::istream& in) {
  if (kind == FileKind::kScalable) return KeySet(ScalableFilter::load(in));
  if (kind == FileKind::kCounting) return KeySet(CountingFilter::load(in));
  return KeySet(Filter::load(in));  // "bad magic" for anything unknown
}

// Loads the filter whose first bytes are `magic` from `in` (positioned at its start): the kind
// the registry gives for its magic (lib/formats/kinds.h), Guava's bytes, or a plain filter.
StoredFilter LoadKind(std::istream& in, std::string_view magic) {
  StoredFilter s;
  if (detail::LooksLikeGuava(magic)) {
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
  const detail::FileKindInfo* kind = detail::FileKindOfMagic(magic);
  s.kind = kind != nullptr ? kind->id : FileKind::kPlain;
  if (s.kind == FileKind::kSpatial) {
    s.spatial.emplace(SpatialFilter::load(in));
  } else if (s.kind == FileKind::kShbfA) {
    s.shbf_a.emplace(ShiftingAssociation::load(in));
  } else if (s.kind == FileKind::kShbfX) {
    s.shbf_x.emplace(ShiftingMultiplicity::load(in));
  } else {
    s.set.emplace(LoadSet(s.kind, in));
  }
  return s;
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
  const auto i = static_cast<size_t>(kind);
  return i < detail::kNumFileKinds ? detail::kFileKinds[i].name : "unknown";
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

KeyType StoredFilter::key_type() const {
  if (set) return set->key_type();
  if (spatial) return spatial->key_type();
  return shbf_a ? shbf_a->key_type() : shbf_x->key_type();
}

}  // namespace cli
}  // namespace simdbloom
