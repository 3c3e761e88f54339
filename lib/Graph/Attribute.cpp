#include "ember/Graph/Attribute.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace ember {

StringRef attrName(AttrKind k) {
  switch (k) {
#define ATTR(E, T, N)                                                                              \
  case AttrKind::E:                                                                                \
    return N;
#include "ember/Graph/Attrs.def"
  }
  return "?";
}

const AttrValue *AttrList::find(AttrKind k) const {
  for (const auto &it : items_)
    if (it.first == k)
      return &it.second;
  return nullptr;
}

void AttrList::setValue(AttrKind k, AttrValue v) {
  auto pos = std::lower_bound(items_.begin(), items_.end(), k,
                              [](const auto &item, AttrKind key) { return item.first < key; });
  if (pos != items_.end() && pos->first == k)
    pos->second = std::move(v);
  else
    items_.insert(pos, {k, std::move(v)});
}

namespace {
uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

struct ValueHasher {
  size_t operator()(int64_t v) const { return hash_value(v); }
  size_t operator()(float v) const { return hash_value(floatBits(v)); }
  size_t operator()(const std::vector<int64_t> &v) const {
    return hash_combine_range(v.begin(), v.end());
  }
  size_t operator()(const std::vector<float> &v) const {
    size_t h = 0;
    for (float f : v)
      h = hash_combine(h, floatBits(f));
    return h;
  }
  size_t operator()(const std::string &v) const { return hash_value(v); }
};
struct ValuePrinter {
  raw_ostream &os;
  void operator()(int64_t v) const { os << v; }
  void operator()(float v) const { os << v; }
  template <typename T> void operator()(const std::vector<T> &v) const {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i)
      os << (i ? ", " : "") << v[i];
    os << "]";
  }
  void operator()(const std::string &v) const { os << '"' << v << '"'; }
};
} // namespace

size_t AttrList::hash() const {
  size_t h = 0;
  for (const auto &it : items_)
    h = hash_combine(h, unsigned(it.first), std::visit(ValueHasher(), it.second));
  return h;
}

void AttrList::print(raw_ostream &os) const {
  bool first = true;
  for (const auto &it : items_) {
    os << (first ? "" : ", ") << attrName(it.first) << ": ";
    std::visit(ValuePrinter{os}, it.second);
    first = false;
  }
}

} // namespace ember
