// matmul-add-to-fc: Add(MatMul(x, W), bias) (either operand order) becomes FullyConnected(x,
// W as [K, N], bias as [N]) when W is a Constant [1.., K, N] (all batch dims 1, so every row of x
// meets the same matrix), the MatMul has no other user, the kind is a float kind, and the bias
// is the same [N] vector for every row: a Broadcast of a Constant varying along the last axis
// only ([N], [1, N], [1], a scalar, ...; the importer makes numpy broadcasting explicit this
// way, so Gemm and torch's Linear both import as MatMul + Broadcast + Add), or a Constant of the
// product's dims whose rows are bitwise equal (what constant folding makes of that Broadcast).
// Safe because FullyConnected is defined as exactly that computation: each row of x times W
// accumulated as MatMul does (same order, same accumulator), rounded to the element kind, then
// the bias added as Add does; nothing is computed twice.
#include "FusionUtils.h"
#include "Passes.h"
#include "PatternUtils.h"

#include <cstring>

using namespace llvm;

namespace ember {

using namespace fusion;

namespace {

/// Whether every dim of \p w but the last two is 1 (so every row meets the same matrix).
bool hasUnitBatchDims(const Constant &w) {
  const Type &t = w.getType();
  for (size_t d = 0; d + 2 < t.rank(); ++d)
    if (t.dims[d] != 1)
      return false;
  return true;
}

/// \p w (see hasUnitBatchDims) as a [K, N] matrix: itself when it is one, else a copy with its
/// leading 1s dropped.
Constant *asMatrix(Module &M, Constant *w) {
  const Type &t = w->getType();
  if (t.rank() == 2)
    return w;
  Tensor copy = w->getPayload().clone();
  copy.reshape({t.dims[t.rank() - 2], t.dims[t.rank() - 1]});
  return M.createConstant(std::move(copy), w->getName().str() + ".fc_weights");
}

/// Whether Constant \p c, broadcast (aligned right), gives every row the same [N] vector: all
/// dims but the last are 1, and the last is N or 1 (or \p c is a scalar).
bool isRowBias(const Constant &c, dim_t N) {
  const Type &t = c.getType();
  for (size_t d = 0; d + 1 < t.rank(); ++d)
    if (t.dims[d] != 1)
      return false;
  return t.rank() == 0 || t.dims.back() == N || t.dims.back() == 1;
}

/// \p c (a row bias, see isRowBias) as a vector of \p N elements.
Constant *asBiasVector(Module &M, Constant *c, dim_t N) {
  const Type &t = c->getType();
  if (t.rank() == 1 && t.dims[0] == N)
    return c;
  Tensor bias(t.withDims({N}));
  if (t.numElements() == N && N != 1) {
    bias = c->getPayload().clone();
    bias.reshape({N});
  } else {
    // One value for every column; float values survive the trip through double exactly.
    bias.fill(c->getPayload().elementAsDouble(0));
  }
  return M.createConstant(std::move(bias), c->getName().str() + ".fc_bias");
}

/// A Constant of \p dims ([.., N]) whose rows are all bitwise equal, as constant folding leaves
/// a Broadcast of a bias: its first row as a new [N] Constant, else null.
Constant *repeatedRow(Module &M, Constant *c, dim_t N) {
  const Tensor &t = c->getPayload();
  size_t rowBytes = N * elemSize(t.getType().kind), total = t.sizeInBytes();
  if (N == 0 || total % rowBytes != 0)
    return nullptr;
  for (size_t off = rowBytes; off < total; off += rowBytes)
    if (std::memcmp(t.data(), t.data() + off, rowBytes) != 0)
      return nullptr;
  Tensor row(t.getType().withDims({N}));
  std::memcpy(row.data(), t.data(), rowBytes);
  return M.createConstant(std::move(row), c->getName().str() + ".fc_bias");
}

/// The bias \p v adds to every row of an [.., N] product as a [N] Constant, or null: a
/// Broadcast of a row bias (see isRowBias), or a Constant of repeated rows.
Constant *biasOf(Module &M, NodeValue v, dim_t N) {
  if (Constant *c = asConstant(v))
    return repeatedRow(M, c, N);
  if (v.node->getKind() != NodeKind::Broadcast)
    return nullptr;
  Constant *c = asConstant(v.node->getOperand(ops::Broadcast::Input));
  return c && isRowBias(*c, N) ? asBiasVector(M, c, N) : nullptr;
}

/// Rewrites \p add if one operand is a MatMul (used only here) with a constant matrix and the
/// other a constant row bias, broadcast.
bool rewrite(Function &F, Node *add) {
  if (!isFloatKind(add->getType().kind))
    return false;
  for (unsigned side = 0; side < 2; ++side) {
    Node *mm = add->getOperand(side).node;
    if (mm->getKind() != NodeKind::MatMul || !onlyUsedBy(mm, add))
      continue;
    Constant *w = asConstant(mm->getOperand(ops::MatMul::RHS));
    if (!w || !hasUnitBatchDims(*w))
      continue;
    Module &M = *F.getParent();
    Constant *bias = biasOf(M, add->getOperand(1 - side), mm->getType().dims.back());
    if (!bias)
      continue;
    Constant *weights = asMatrix(M, w);
    AttrList attrs;
    attrs.set<AttrKind::FusedActivation>("").set<AttrKind::FusedActivationArgs>({});
    // On a type mismatch the copies made above stay unused until the next DCE.
    if (replaceWithNew(F, add, NodeKind::FullyConnected, mm->getName(),
                       {mm->getOperand(ops::MatMul::LHS), weights->getResult(),
                        bias->getResult()},
                       std::move(attrs)))
      return true;
  }
  return false;
}

} // namespace

bool runMatMulAddToFC(Function &F, const PassContext &) {
  return pattern::rewriteEach(
      F, [&](Node *n) { return n->getKind() == NodeKind::Add && rewrite(F, n); });
}

} // namespace ember
