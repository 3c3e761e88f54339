// Node and instruction attributes: a small sorted list of (AttrKind, value). The kinds and their
// value types come from Attrs.def, so access is typed: `attrs.get<AttrKind::Strides>()`.
#ifndef EMBER_GRAPH_ATTRIBUTE_H
#define EMBER_GRAPH_ATTRIBUTE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cassert>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace ember {

enum class AttrKind : uint8_t {
#define ATTR(E, T, N) E,
#include "ember/Graph/Attrs.def"
};

using AttrValue =
    std::variant<int64_t, float, std::vector<int64_t>, std::vector<float>, std::string>;

namespace detail {
template <typename T> struct AttrCType;
struct AttrInt { using type = int64_t; };
struct AttrFloat { using type = float; };
struct AttrInts { using type = std::vector<int64_t>; };
struct AttrFloats { using type = std::vector<float>; };
struct AttrStr { using type = std::string; };
} // namespace detail

/// AttrTraits<K>::type is the C++ type of attribute K.
template <AttrKind K> struct AttrTraits;
#define ATTR(E, T, N)                                                                              \
  template <> struct AttrTraits<AttrKind::E> { using type = detail::Attr##T::type; };
#include "ember/Graph/Attrs.def"

llvm::StringRef attrName(AttrKind k);

class AttrList {
  llvm::SmallVector<std::pair<AttrKind, AttrValue>, 4> items_; // sorted by kind

  const AttrValue *find(AttrKind k) const;

public:
  AttrList() = default;

  template <AttrKind K> AttrList &set(typename AttrTraits<K>::type v) {
    setValue(K, AttrValue(std::move(v)));
    return *this;
  }
  template <AttrKind K> const typename AttrTraits<K>::type &get() const {
    const AttrValue *v = find(K);
    assert(v && "attribute missing; the verifier checks presence");
    return std::get<typename AttrTraits<K>::type>(*v);
  }
  void setValue(AttrKind k, AttrValue v);
  bool has(AttrKind k) const { return find(k) != nullptr; }
  llvm::ArrayRef<std::pair<AttrKind, AttrValue>> items() const { return items_; }

  bool operator==(const AttrList &o) const { return items_ == o.items_; }
  size_t hash() const;
  /// "kernels: [3, 3], group: 1"
  void print(llvm::raw_ostream &os) const;
};

/// Cast's Saturate attribute, which only ONNX's Cast and CastLike set: 1 when absent (ONNX's
/// default), so that the importer's own Casts and hand-built graphs need not say it.
inline int64_t castSaturates(const AttrList &a) {
  return a.has(AttrKind::Saturate) ? a.get<AttrKind::Saturate>() : 1;
}

} // namespace ember

#endif
