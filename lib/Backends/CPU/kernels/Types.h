// Element types of the kernel library: every ONNX numeric kind as a storage type, the type each
// one computes in, and conversions between any two, with exactly the rules of the Interpreter
// (lib/Backends/Interpreter/ElementwiseCommon.h, include/ember/Base/Float16.h):
//  - float16 and bfloat16 are stored as 16 bits and compute as float; float -> 16 bits rounds to
//    nearest even (bit-exact with ember::floatToHalf and ember::bfloat16_t);
//  - bool is a byte holding 0 or 1; to bool is x != 0 (NaN is true);
//  - float -> integer truncates toward zero and saturates, NaN gives 0 (the rule of
//    ember/Semantics/Conversions.h, shared with the Interpreter); integer -> narrower
//    integer wraps; integer arithmetic wraps (kernels compute it in unsigned types).
//
// A kernel templated on the storage type T covers every kind with one body; the EMBER_FOR_*
// macros instantiate it once per kind under the suffix codegen uses (kindSuffix,
// ember/Backends/KernelKinds.h): f32 f64 f16 bf16 i8 u8 i16 u16 i32 u32 i64 u64 bool (whose
// storage type is b8).
#ifndef EMBER_CPU_KERNELS_TYPES_H
#define EMBER_CPU_KERNELS_TYPES_H

#include "KernelCommon.h"

#include "ember/Base/HalfBits.h"
#include "ember/Semantics/Conversions.h"

typedef __INT8_TYPE__ i8;
typedef __INT16_TYPE__ i16;

/// IEEE half and bfloat16, as bits.
struct f16 {
  u16 bits;
};
struct bf16 {
  u16 bits;
};
/// bool as stored: one byte, 0 or 1.
struct b8 {
  u8 v;
};

// The conversions ember itself uses (bit-exact with its float16_t and bfloat16_t).
using ember::halfbits::bfloatToFloat;
using ember::halfbits::floatToBfloat;
using ember::halfbits::floatToHalf;
using ember::halfbits::halfToFloat;

template <typename A, typename B> struct SameType {
  static constexpr bool value = false;
};
template <typename A> struct SameType<A, A> {
  static constexpr bool value = true;
};
template <typename A, typename B> constexpr bool kSame = SameType<A, B>::value;

/// Per storage type T: what it computes in, how to read and write it, and its class.
template <typename T> struct Elem {
  typedef T Compute;
  static constexpr bool isFloat = kSame<T, float> || kSame<T, double>;
  static constexpr bool isBool = false;
  static constexpr bool isSigned = T(-1) < T(0);
  static Compute load(T x) { return x; }
  static T store(Compute c) { return c; }
};
template <> struct Elem<f16> {
  typedef float Compute;
  static constexpr bool isFloat = true, isBool = false, isSigned = true;
  static float load(f16 x) { return halfToFloat(x.bits); }
  static f16 store(float c) { return f16{floatToHalf(c)}; }
};
template <> struct Elem<bf16> {
  typedef float Compute;
  static constexpr bool isFloat = true, isBool = false, isSigned = true;
  static float load(bf16 x) { return bfloatToFloat(x.bits); }
  static bf16 store(float c) { return bf16{floatToBfloat(c)}; }
};
template <> struct Elem<b8> {
  typedef bool Compute;
  static constexpr bool isFloat = false, isBool = true, isSigned = false;
  static bool load(b8 x) { return x.v != 0; }
  static b8 store(bool c) { return b8{u8(c ? 1 : 0)}; }
};

template <typename T> using ComputeOf = typename Elem<T>::Compute;
template <typename T> constexpr bool kIsFloat = Elem<T>::isFloat;
template <typename T> constexpr bool kIsBool = Elem<T>::isBool;
template <typename T> constexpr bool kIsInt = !Elem<T>::isFloat && !Elem<T>::isBool;
template <typename T> constexpr bool kIsSigned = Elem<T>::isSigned;

/// Element i of p, as its compute type / written from one.
template <typename T> EMBER_INLINE ComputeOf<T> ld(const T *p, i64 i) {
  return Elem<T>::load(p[i]);
}
template <typename T> EMBER_INLINE void st(T *p, i64 i, ComputeOf<T> v) {
  p[i] = Elem<T>::store(v);
}

/// Smallest and largest values of an integer compute type.
template <typename T> constexpr T intMin() {
  if constexpr (T(-1) < T(0))
    return T(T(1) << (sizeof(T) * 8 - 1));
  else
    return T(0);
}
template <typename T> constexpr T intMax() {
  if constexpr (T(-1) < T(0))
    return T(~intMin<T>());
  else
    return T(~T(0));
}

/// The unsigned type of T's width: integer kernels compute in it so overflow wraps.
template <typename T> struct UnsignedOf;
template <> struct UnsignedOf<i8> { typedef u8 type; };
template <> struct UnsignedOf<u8> { typedef u8 type; };
template <> struct UnsignedOf<i16> { typedef u16 type; };
template <> struct UnsignedOf<u16> { typedef u16 type; };
template <> struct UnsignedOf<i32> { typedef u32 type; };
template <> struct UnsignedOf<u32> { typedef u32 type; };
template <> struct UnsignedOf<i64> { typedef u64 type; };
template <> struct UnsignedOf<u64> { typedef u64 type; };
/// Wide enough that T's values do not promote to int (u8/u16 arithmetic would be int).
template <typename T> using WrapOf = decltype(0u + typename UnsignedOf<T>::type());

EMBER_INLINE bool isNaN(double x) { return x != x; }

/// \p x (a compute value of From) converted to To's compute type, by the rules above.
template <typename To, typename From> EMBER_INLINE ComputeOf<To> convert(ComputeOf<From> x) {
  typedef ComputeOf<To> C;
  if constexpr (kIsBool<To>) {
    return x != ComputeOf<From>(0);
  } else if constexpr (kIsFloat<To>) {
    if constexpr (kIsBool<From>)
      return C(x ? 1 : 0);
    else
      return C(x);
  } else if constexpr (kIsFloat<From>) {
    return ember::conversions::truncateAndSaturate(double(x), intMin<C>(), intMax<C>());
  } else {
    return C(x);
  }
}

// Instantiation lists: X(suffix, storage type).
#define EMBER_FOR_FLOAT_KINDS(X) X(f32, float) X(f64, double) X(f16, f16) X(bf16, bf16)
#define EMBER_FOR_SIGNED_INT_KINDS(X) X(i8, i8) X(i16, i16) X(i32, i32) X(i64, i64)
#define EMBER_FOR_UNSIGNED_INT_KINDS(X) X(u8, u8) X(u16, u16) X(u32, u32) X(u64, u64)
#define EMBER_FOR_INT_KINDS(X) EMBER_FOR_SIGNED_INT_KINDS(X) EMBER_FOR_UNSIGNED_INT_KINDS(X)
#define EMBER_FOR_NUMERIC_KINDS(X) EMBER_FOR_FLOAT_KINDS(X) EMBER_FOR_INT_KINDS(X)
#define EMBER_FOR_ALL_KINDS(X) EMBER_FOR_NUMERIC_KINDS(X) X(bool, b8)
// The same lists for an X that takes more arguments: X(suffix, type, ...).
#define EMBER_FOR_SIGNED_INT_KINDS_WITH(X, ...)                                                    \
  X(i8, i8, __VA_ARGS__) X(i16, i16, __VA_ARGS__) X(i32, i32, __VA_ARGS__) X(i64, i64, __VA_ARGS__)
#define EMBER_FOR_INT_KINDS_WITH(X, ...)                                                           \
  EMBER_FOR_SIGNED_INT_KINDS_WITH(X, __VA_ARGS__)                                                  \
  X(u8, u8, __VA_ARGS__) X(u16, u16, __VA_ARGS__) X(u32, u32, __VA_ARGS__) X(u64, u64, __VA_ARGS__)

#endif
