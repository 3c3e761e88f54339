// TopK, Einsum and NLLLoss, with the Interpreter's semantics (lib/Backends/Interpreter/
// Reduce.cpp, ReduceEinsum.cpp, ReduceLoss.cpp).
#include "ReduceCommon.h"

namespace {

/// TopK along the middle axis of [outer, len, inner]: each line's positions sorted by a stable
/// bottom-up merge sort (ties keep index order, as the Interpreter's stable_sort), NaN ranking
/// above every number (first when largest, last otherwise). order/tmp: 2 * len indices of
/// scratch.
template <typename T>
EMBER_INLINE void topK(T *values, i64 *indices, const T *in, i64 *scratch, i64 outer, i64 len,
                       i64 inner, i64 k, i64 largest) {
  typedef ComputeOf<T> C;
  for (i64 o = 0; o < outer; ++o)
    for (i64 i = 0; i < inner; ++i) {
      const T *x = in + o * len * inner + i;
      // Strictly before: the merge takes from the right run only then, which keeps it stable.
      auto before = [&](i64 a, i64 b) {
        C va = ld(x, a * inner), vb = ld(x, b * inner);
        if (largest)
          return beats<true>(va, vb);
        return !nanOf(va) && (nanOf(vb) || va < vb);
      };
      i64 *src = scratch, *dst = scratch + len;
      for (i64 j = 0; j < len; ++j)
        src[j] = j;
      for (i64 width = 1; width < len; width *= 2) {
        for (i64 lo = 0; lo < len; lo += 2 * width) {
          i64 mid = minI(lo + width, len), hi = minI(lo + 2 * width, len);
          i64 a = lo, b = mid, d = lo;
          while (a < mid && b < hi)
            dst[d++] = before(src[b], src[a]) ? src[b++] : src[a++];
          while (a < mid)
            dst[d++] = src[a++];
          while (b < hi)
            dst[d++] = src[b++];
        }
        i64 *t = src;
        src = dst;
        dst = t;
      }
      for (i64 j = 0; j < k; ++j) {
        i64 at = (o * k + j) * inner + i;
        values[at] = x[src[j] * inner];
        indices[at] = src[j];
      }
    }
}

/// Limits codegen checks (CodeGenReduce.cpp).
constexpr i64 kEinsumMaxOps = 16, kEinsumMaxLabels = 64;

/// Einsum: out[out labels] = sum over the summed labels of the product of the operands. Labels
/// are numbered output ones first (row-major over the result), then the summed ones in order
/// of first appearance; strides[op * numLabels + l] is how far operand op moves when label l
/// steps (the sum of its dims' strides when the label repeats in it: the diagonal). The loop
/// visits the label values in the Interpreter's order, so float sums round alike.
template <typename T>
EMBER_INLINE void einsum(T *out, const T *const *ins, i64 numOps, i64 numOut, i64 numSum,
                         const i64 *sizes, const i64 *strides) {
  typedef Accum<T> A;
  i64 numLabels = numOut + numSum;
  i64 outCount = 1, sumCount = 1;
  for (i64 l = 0; l < numOut; ++l)
    outCount *= sizes[l];
  for (i64 l = numOut; l < numLabels; ++l)
    sumCount *= sizes[l];
  i64 base[kEinsumMaxOps] = {}, off[kEinsumMaxOps] = {};
  i64 oidx[kEinsumMaxLabels] = {}, sidx[kEinsumMaxLabels] = {};
  // The last summed label is the innermost loop, a tight one (two operands: a strided dot
  // product); the odometer steps the others.
  i64 last = numLabels - 1, n = numSum ? sizes[last] : 1;
  i64 runs = numSum && n ? sumCount / n : sumCount;
  for (i64 e = 0; e < outCount; ++e) {
    A acc = A(0);
    for (i64 op = 0; op < numOps; ++op)
      off[op] = base[op];
    for (i64 l = 0; l < numSum; ++l)
      sidx[l] = 0;
    for (i64 r = 0; r < runs; ++r) {
      if (numSum == 0) {
        A product = A(1);
        for (i64 op = 0; op < numOps; ++op)
          product = wrapMul(product, loadA(ins[op], off[op]));
        acc = wrapAdd(acc, product);
      } else if (numOps == 2) {
        // 1 * a * b is a * b exactly, so this rounds as the general product does.
        const T *a = ins[0], *b = ins[1];
        i64 sa = strides[last], sb = strides[numLabels + last], oa = off[0], ob = off[1];
        for (i64 t = 0; t < n; ++t)
          acc = wrapAdd(acc, wrapMul(loadA(a, oa + t * sa), loadA(b, ob + t * sb)));
      } else {
        for (i64 t = 0; t < n; ++t) {
          A product = A(1);
          for (i64 op = 0; op < numOps; ++op) {
            i64 at = off[op] + t * strides[op * numLabels + last];
            product = wrapMul(product, loadA(ins[op], at));
          }
          acc = wrapAdd(acc, product);
        }
      }
      // Odometer over the summed labels but the last.
      for (i64 l = numSum - 1; l-- > 0;) {
        i64 label = numOut + l;
        bool carry = ++sidx[l] == sizes[label];
        for (i64 op = 0; op < numOps; ++op) {
          i64 st = strides[op * numLabels + label];
          off[op] = carry ? off[op] - st * (sizes[label] - 1) : off[op] + st;
        }
        if (!carry)
          break;
        sidx[l] = 0;
      }
    }
    out[e] = toStorage<T>(acc);
    for (i64 l = numOut; l-- > 0;) {
      bool carry = ++oidx[l] == sizes[l];
      for (i64 op = 0; op < numOps; ++op) {
        i64 st = strides[op * numLabels + l];
        base[op] = carry ? base[op] - st * (sizes[l] - 1) : base[op] + st;
      }
      if (!carry)
        break;
      oidx[l] = 0;
    }
  }
}

/// NLLLoss of in [N, C, D] against target [N, D] with weight [C]: loss = -in[n, t, d] * w[t],
/// 0 (and weight 0) where t is the ignore index; mode 0 keeps the losses [N, D], 1 sums them, 2
/// divides the sum by the sum of the weights used (0/0: NaN when every target is ignored).
/// Returns 0, or 1 + the position of the first target that is not a class index.
template <typename T, typename I>
EMBER_INLINE i64 nllLoss(T *out, const T *in, const I *target, const T *weight, i64 N, i64 C,
                         i64 D, i64 mode, i64 hasIgnore, i64 ignore) {
  double lossSum = 0, weightSum = 0;
  for (i64 n = 0; n < N; ++n)
    for (i64 d = 0; d < D; ++d) {
      i64 t = i64(target[n * D + d]);
      double loss = 0, w = 0;
      if (!hasIgnore || t != ignore) {
        if (t < 0 || t >= C)
          return n * D + d + 1;
        w = loadD(weight, t);
        loss = -loadD(in, (n * C + t) * D + d) * w;
      }
      if (mode == 0)
        out[n * D + d] = fromDouble<T>(loss);
      lossSum += loss;
      weightSum += w;
    }
  if (mode == 1)
    out[0] = fromDouble<T>(lossSum);
  else if (mode == 2)
    out[0] = fromDouble<T>(lossSum / weightSum);
  return 0;
}

} // namespace

#define SELECT_KERNELS(S, T)                                                                       \
  EMBER_KERNEL void ember_topk_##S(T *values, i64 *indices, const T *in, i64 *scratch, i64 outer, \
                                   i64 len, i64 inner, i64 k, i64 largest) {                       \
    topK(values, indices, in, scratch, outer, len, inner, k, largest);                             \
  }                                                                                                \
  EMBER_KERNEL void ember_einsum_##S(T *out, const T *const *ins, i64 numOps, i64 numOut,         \
                                     i64 numSum, const i64 *sizes, const i64 *strides) {           \
    einsum(out, ins, numOps, numOut, numSum, sizes, strides);                                      \
  }
EMBER_FOR_REDUCE_KINDS(SELECT_KERNELS)
#undef SELECT_KERNELS

#define NLL_KERNELS(S, T)                                                                          \
  EMBER_KERNEL i64 ember_nllloss_##S##_i32(T *out, const T *in, const i32 *target,                \
                                           const T *weight, i64 N, i64 C, i64 D, i64 mode,         \
                                           i64 hasIgnore, i64 ignore) {                            \
    return nllLoss(out, in, target, weight, N, C, D, mode, hasIgnore, ignore);                     \
  }                                                                                                \
  EMBER_KERNEL i64 ember_nllloss_##S##_i64(T *out, const T *in, const i64 *target,                \
                                           const T *weight, i64 N, i64 C, i64 D, i64 mode,         \
                                           i64 hasIgnore, i64 ignore) {                            \
    return nllLoss(out, in, target, weight, N, C, D, mode, hasIgnore, ignore);                     \
  }
EMBER_FOR_FLOAT_KINDS(NLL_KERNELS)
#undef NLL_KERNELS
