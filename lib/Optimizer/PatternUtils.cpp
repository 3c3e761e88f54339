#include "PatternUtils.h"

#include <cstring>

using namespace llvm;

namespace ember {
namespace pattern {

bool rewriteEach(Function &F, llvm::function_ref<bool(Node *)> rewrite) {
  bool changed = false;
  for (Node *n : F.topologicalOrder())
    changed |= rewrite(n);
  return changed;
}

const Constant *asConstant(NodeValue v) {
  if (!v.node || v.node->getKind() != NodeKind::Constant)
    return nullptr;
  return static_cast<const Constant *>(v.node);
}

bool isSplatConstant(NodeValue v, double value) {
  // Broadcast and Reshape only repeat or regroup elements: a splat stays a splat.
  while (v.node && (v.node->getKind() == NodeKind::Broadcast ||
                    v.node->getKind() == NodeKind::Reshape))
    v = v.node->getOperand(0);
  const Constant *c = asConstant(v);
  if (!c)
    return false;
  const Tensor &t = c->getPayload();
  ElemKind k = t.getType().kind;
  if (k == ElemKind::Bool || isQuantizedKind(k) || t.numElements() == 0)
    return false;
  for (size_t i = 0, e = t.numElements(); i < e; ++i)
    if (!(t.elementAsDouble(i) == value))
      return false;
  return true;
}

Node *getSingleUser(NodeValue v) {
  Node *user = nullptr;
  for (const NodeUse &u : v.node->getUsers()) {
    if (u.user->getOperand(u.operandIdx).resNo != v.resNo)
      continue;
    if (user && user != u.user)
      return nullptr;
    user = u.user;
  }
  return user;
}

bool isIdentityPermutation(ArrayRef<int64_t> p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != int64_t(i))
      return false;
  return true;
}

SmallVector<int64_t, 6> inversePermutation(ArrayRef<int64_t> p) {
  SmallVector<int64_t, 6> q(p.size());
  for (size_t i = 0; i < p.size(); ++i)
    q[size_t(p[i])] = int64_t(i);
  return q;
}

SmallVector<int64_t, 6> composePermutations(ArrayRef<int64_t> inner, ArrayRef<int64_t> outer) {
  // Result axis i walks the inner result's axis outer[i], which walks input axis inner[outer[i]].
  SmallVector<int64_t, 6> r;
  for (int64_t o : outer)
    r.push_back(inner[size_t(o)]);
  return r;
}

DimsVec permuteDims(ArrayRef<dim_t> dims, ArrayRef<int64_t> p) {
  DimsVec r;
  for (int64_t i : p)
    r.push_back(dims[size_t(i)]);
  return r;
}

Tensor transposeTensor(const Tensor &t, ArrayRef<int64_t> shuffle) {
  const Type &in = t.getType();
  Tensor out(in.withDims(permuteDims(in.dims, shuffle)));
  size_t n = out.numElements(), esz = in.elementSize(), rank = in.rank();
  if (n == 0)
    return out;
  // Row-major input strides, read in the result's axis order.
  SmallVector<size_t, 6> inStrides(rank, 1), srcStrides(rank);
  for (size_t d = rank; d-- > 1;)
    inStrides[d - 1] = inStrides[d] * in.dims[d];
  for (size_t i = 0; i < rank; ++i)
    srcStrides[i] = inStrides[size_t(shuffle[i])];
  const DimsVec &dims = out.getType().dims;
  SmallVector<size_t, 6> idx(rank, 0);
  size_t src = 0; // element offset in t of the result element at idx
  const uint8_t *from = t.data();
  uint8_t *to = out.data();
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(to + i * esz, from + src * esz, esz);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < dims[d]) {
        src += srcStrides[d];
        break;
      }
      src -= (dims[d] - 1) * srcStrides[d];
      idx[d] = 0;
    }
  }
  return out;
}

} // namespace pattern
} // namespace ember
