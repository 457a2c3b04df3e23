// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: the non-template parts of locked_filter.h.
#include "locked_filter.h"

#include <cstdio>
#include <cstring>

namespace simdbloom_py {

void NotOneKey(const char* who) {
  throw py::type_error(std::string(who) +
                       " takes one key here (int, bytes, str, NumPy integer); batches go to the "
                       "bulk calls");
}

void BeyondRange(const char* who, KeyType type, const OutOfRange& key, bool refuse) {
  if (type == KeyType::kBytes) {
    throw py::type_error(std::string(who) + ": integer key " + key.repr +
                         " on a filter of bytes keys");
  }
  if (refuse) ThrowOutOfRange(who, key.repr);
}

template <class Out>
py::array CheckedOut(py::object out, size_t n) {
  if (!py::isinstance<py::array>(out)) throw py::type_error("out: must be an array");
  py::array a = py::reinterpret_borrow<py::array>(out);
  const py::dtype dt = a.dtype();
  if (std::is_same<Out, bool>::value) {
    if (!(dt.kind() == 'b' || (dt.kind() == 'u' && dt.itemsize() == 1))) {
      throw py::type_error("out: must be a bool or uint8 array");
    }
  } else if (!dt.is(py::dtype::of<Out>()) && !dt.equal(py::dtype::of<Out>())) {
    throw py::type_error(
        "out: must be a " +
        py::str(static_cast<py::handle>(py::dtype::of<Out>())).cast<std::string>() + " array");
  }
  if (a.ndim() != 1 || static_cast<size_t>(a.shape(0)) != n) {
    throw py::value_error("out: must be 1-D with one item per key (" + std::to_string(n) + ")");
  }
  if (n > 1 && a.strides(0) != static_cast<py::ssize_t>(sizeof(Elem<Out>))) {
    throw py::value_error("out: must be contiguous");
  }
  if (!a.writeable()) throw py::value_error("out: is read-only");
  return a;
}
void CheckOutApart(const py::array& out, const KeyBatch& b) {
  const auto* o = static_cast<const char*>(out.data());
  const auto on = static_cast<size_t>(out.nbytes());
  const auto shares = [&](const void* p, size_t n) {
    const auto* q = static_cast<const char*>(p);
    return n != 0 && on != 0 && q < o + on && o < q + n;
  };
  bool overlap = false;
  for (const py::object* h : {&b.array, &b.valid_array}) {
    if (h->ptr() != nullptr && py::isinstance<py::array>(*h)) {
      const auto a = py::reinterpret_borrow<py::array>(*h);
      overlap |= shares(a.data(), static_cast<size_t>(a.nbytes()));
    }
  }
  if (b.keys && b.keys->data() != nullptr) {  // Arrow data read in place: up to the last offset
    const int64_t last = !b.offsets32.empty() ? b.offsets32.back()
                         : !b.offsets.empty() ? b.offsets.back()
                                              : 0;
    overlap |= shares(b.keys->data(), last > 0 ? static_cast<size_t>(last) : 0);
  }
  if (overlap) {
    throw py::value_error(
        "out: shares memory with the keys (the results would overwrite keys not yet read): "
        "pass an array of its own");
  }
}

template py::array CheckedOut<bool>(py::object, size_t);
template py::array CheckedOut<uint8_t>(py::object, size_t);
template py::array CheckedOut<uint16_t>(py::object, size_t);
template py::array CheckedOut<uint32_t>(py::object, size_t);

std::string Repr(const char* name, const std::vector<std::pair<const char*, std::string>>& fields) {
  std::string s = std::string("simdbloom.") + name + "(";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) s += ", ";
    s += fields[i].first;
    s += "=";
    s += fields[i].second;
  }
  return s + ")";
}

std::string FormatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

double BitFill(const uint8_t* data, size_t bytes) {
  if (bytes == 0) return 0;
  uint64_t ones = 0;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    ones += static_cast<uint64_t>(__builtin_popcountll(w));
  }
  for (; i < bytes; ++i) ones += static_cast<uint64_t>(__builtin_popcount(data[i]));
  return static_cast<double>(ones) / (8.0 * static_cast<double>(bytes));
}

}  // namespace simdbloom_py
