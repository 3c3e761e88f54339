// Interpreter kernel: Einsum over explicit dim labels, for every numeric element kind. Every
// label gets a loop; each operand steps through its elements with a stride per label (the sum
// of its dims' strides when a label repeats, which walks the diagonal), and the products are
// summed into the result element the output labels pick.
#include "ReduceUtils.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;

namespace ember {
namespace interp {

Error runEinsum(const KernelContext &ctx) {
  const std::vector<int64_t> &inLabels = ctx.attr<AttrKind::InputLabels>();
  const std::vector<int64_t> &outLabels = ctx.attr<AttrKind::OutputLabels>();
  unsigned numOps = ctx.numInputs();

  // Loop order: the output labels first (row-major over the result), then the summed ones.
  DenseMap<int64_t, unsigned> slot;
  SmallVector<dim_t, 8> sizes;
  for (int64_t label : outLabels)
    slot.try_emplace(label, slot.size());
  sizes.resize(slot.size(), 0);
  size_t next = 0;
  for (unsigned op = 0; op < numOps; ++op) {
    for (dim_t d : ctx.in(op).dims()) {
      auto [it, inserted] = slot.try_emplace(inLabels[next++], slot.size());
      if (inserted)
        sizes.push_back(d);
      sizes[it->second] = d; // the shape rule checked that all occurrences agree
    }
  }
  size_t numLabels = sizes.size();

  // strides[op][l]: how far operand op moves when label l advances by one.
  std::vector<DimsVec> strides(numOps + 1, DimsVec(numLabels, 0));
  next = 0;
  for (unsigned op = 0; op < numOps; ++op) {
    DimsVec s = rowMajorStrides(ctx.in(op).dims());
    for (size_t d = 0; d < s.size(); ++d)
      strides[op][slot[inLabels[next++]]] += s[d];
  }
  DimsVec outStrides = rowMajorStrides(ctx.out().dims());
  for (size_t l = 0; l < outLabels.size(); ++l)
    strides[numOps][l] = outStrides[l];

  size_t total = dimsProduct(sizes);

  return dispatchNumericKinds(ctx, ctx.out().type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    std::vector<Accum<T>> acc(ctx.out().numElements(), Accum<T>(0));
    SmallVector<const T *, 4> in;
    for (unsigned op = 0; op < numOps; ++op)
      in.push_back(ctx.in(op).as<T>());
    DimsVec idx(numLabels, 0);
    SmallVector<size_t, 5> offset(numOps + 1, 0); // per operand, then the result
    for (size_t step = 0; step < total; ++step) {
      Accum<T> product = 1;
      for (unsigned op = 0; op < numOps; ++op)
        product = wrapMul(product, load(in[op][offset[op]]));
      acc[offset[numOps]] = wrapAdd(acc[offset[numOps]], product);
      // Odometer step over the labels, the last one fastest.
      for (size_t l = numLabels; l-- > 0;) {
        bool carry = ++idx[l] == sizes[l];
        for (unsigned op = 0; op <= numOps; ++op)
          offset[op] =
              carry ? offset[op] - strides[op][l] * (sizes[l] - 1) : offset[op] + strides[op][l];
        if (!carry)
          break;
        idx[l] = 0;
      }
    }
    T *out = ctx.out().as<T>();
    for (size_t i = 0; i < acc.size(); ++i)
      out[i] = toStorage<T>(acc[i]);
    return Error::success();
  });
}

bool supportsEinsum(const Node &n) { return isNumericKind(resultKind(n)); }

} // namespace interp
} // namespace ember
