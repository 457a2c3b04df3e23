// SPDX-License-Identifier: Apache-2.0
// What info prints of every kind of filter file (its text and its JSON), the "filter" objects of
// the commands' JSON summaries, and the area names classify prints (declared in key_set.h).
#include <stdarg.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "lib/cli/json.h"
#include "lib/cli/key_set.h"

namespace simdbloom {
namespace cli {
namespace {

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

Json KeySet::Geometry() const {
  Json g;
  if (chain_) {
    g.Str("kind", KindName(FileKind::kScalable))
        .Str("layout", layout_name(chain_->layout()))
        .Int("stages", chain_->stages())
        .Int("initial_capacity", chain_->initial_capacity())
        .Int("bytes", chain_->size_bytes());
  } else if (counting_) {
    g.Str("kind", KindName(FileKind::kCounting))
        .Str("layout", counting_layout_name(counting_->layout()))
        .Int("counters", counting_->counter_count())
        .Int("k", counting_->num_hashes())
        .Int("bytes", counting_->size_bytes());
  } else {
    g.Str("kind", KindName(FileKind::kPlain));
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

Json SpatialGeometry(const SpatialFilter& f) {
  Json g;
  g.Str("kind", KindName(FileKind::kSpatial))
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
      const size_t n = Utf8Length(name, i);
      const bool ok = n != 0 && !(b == 0xC2 && static_cast<unsigned char>(name[i + 1]) < 0xA0);
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
