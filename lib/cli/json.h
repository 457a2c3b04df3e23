// SPDX-License-Identifier: Apache-2.0
// A flat JSON object written key by key (the --json summary). Strings are escaped per RFC 8259;
// non-finite numbers are written as null. Output is UTF-8: invalid bytes become U+FFFD.
#ifndef SIMDBLOOM_CLI_JSON_H_
#define SIMDBLOOM_CLI_JSON_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

namespace simdbloom {
namespace cli {

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), 0 if the bytes there are not one: for Json's strings and
// key_set.h's EscapedName. Not inlined: inlined with a one-byte literal key, GCC 12 reports
// -Warray-bounds on reads the length test excludes.
[[gnu::noinline]] inline size_t Utf8Length(std::string_view s, size_t i) {
  const auto b = [&](size_t j) { return static_cast<unsigned char>(s[j]); };
  const unsigned char c = b(i);
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (s.size() - i < n || b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t j = 2; j < n; ++j) {
    if (b(i + j) < 0x80 || b(i + j) > 0xBF) return 0;
  }
  return n;
}

class Json {
 public:
  Json& Str(std::string_view key, std::string_view value) {
    Key(key);
    Quote(value);
    return *this;
  }
  // Any integer type, printed in its own signedness: a uint64_t of 2^63 or more stays positive.
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Json& Int(std::string_view key, T value) {
    Key(key);
    out_ += std::to_string(value);
    return *this;
  }
  Json& Num(std::string_view key, double value) {
    Key(key);
    if (!std::isfinite(value)) {
      out_ += "null";
    } else if (value == 0) {
      out_ += '0';  // not "-0"
    } else {
      char s[40];
      std::snprintf(s, sizeof(s), "%.6g", value);
      out_ += s;
    }
    return *this;
  }
  Json& Bool(std::string_view key, bool value) {
    Key(key);
    out_ += value ? "true" : "false";
    return *this;
  }
  // A nested object, already rendered by another Json.
  Json& Obj(std::string_view key, const Json& value) {
    Key(key);
    out_ += value.str();
    return *this;
  }
  // An array of objects, each rendered by another Json.
  template <class Container>
  Json& Arr(std::string_view key, const Container& values) {
    Key(key);
    out_ += '[';
    bool first = true;
    for (const Json& v : values) {
      if (!first) out_ += ',';
      first = false;
      out_ += v.str();
    }
    out_ += ']';
    return *this;
  }
  std::string str() const { return out_.empty() ? "{}" : out_ + "}"; }

 private:
  void Key(std::string_view key) {
    out_ += out_.empty() ? "{" : ",";
    Quote(key);
    out_ += ':';
  }
  // JSON text is UTF-8 (RFC 8259): a byte that starts no well-formed sequence (a file name in
  // another encoding) is written as U+FFFD.
  void Quote(std::string_view s) {
    out_ += '"';
    for (size_t i = 0; i < s.size();) {
      const char c = s[i];
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += c;
      } else if (u < 0x20) {
        char e[8];
        std::snprintf(e, sizeof(e), "\\u%04x", u);
        out_ += e;
      } else if (const size_t n = Utf8Length(s, i); n > 0) {
        out_.append(s.data() + i, n);
        i += n;
        continue;
      } else {
        out_ += "\\ufffd";
      }
      ++i;
    }
    out_ += '"';
  }
  std::string out_;
};

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_JSON_H_
