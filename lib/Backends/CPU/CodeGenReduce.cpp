// Codegen for the reductions and selections (kernels/Reduce.cpp, kernels/ReduceSelect.cpp):
// Reduce, ArgMax/ArgMin, CumSum, TopK, Einsum and NLLLoss, on every element kind the
// Interpreter takes for them (numbers; NLLLoss floats).
//
// Reduce over any set of axes: codegen merges the axes into a ReduceView and the generic
// kernel walks the input once in row-major order into per-group accumulators (scratch). A
// float32 reduction whose view has a single run of reduced axes ([outer, len, inner]: ReduceMean
// over trailing axes, global pooling) takes the vectorized kernel without scratch instead.
#include "CodeGenReduce.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// The kernels' ReduceOp numbering (kernels/Reduce.cpp), -1 for unknown reductions.
int64_t reduceOp(StringRef r) {
  return StringSwitch<int64_t>(r)
      .Case("sum", 0)
      .Case("mean", 1)
      .Case("max", 2)
      .Case("min", 3)
      .Case("prod", 4)
      .Case("sum_square", 5)
      .Case("l1", 6)
      .Case("l2", 7)
      .Case("log_sum", 8)
      .Case("log_sum_exp", 9)
      .Default(-1);
}

bool supportsReduce(const Node &n) {
  const Type &x = n.getOperand(ops::Reduce::Input).getType();
  return isNumber(n.getType(0).kind) && reduceOp(n.attr<AttrKind::Reduction>()) >= 0 &&
         x.rank() <= kMaxReduceRank;
}

/// Whether the float32 kernel takes the reduction: one run of reduced axes.
bool fastReduce(ElemKind k, const ReduceView &v) {
  return k == ElemKind::Float32 && v.reducedRuns() <= 1;
}

uint64_t reduceScratch(const Instruction &I, int64_t /*threads*/) {
  const Type &x = I.getInput(ops::Reduce::Input)->getType();
  ReduceView v = makeReduceView(x.dims, I.attr<AttrKind::Axes>());
  if (fastReduce(x.kind, v))
    return 0;
  bool lse = I.attr<AttrKind::Reduction>() == "log_sum_exp";
  return uint64_t(v.groups) * 8 * (lse ? 2 : 1);
}

Error emitReduce(Emitter &E, const Instruction &I) {
  const Type &x = I.getInput(ops::Reduce::Input)->getType();
  const std::string &how = I.attr<AttrKind::Reduction>();
  int64_t op = reduceOp(how);
  if (op < 0)
    return instrError(I, "no CPU kernel for reduction '" + how + "'");
  ReduceView v = makeReduceView(x.dims, I.attr<AttrKind::Axes>());
  if (fastReduce(x.kind, v)) {
    int64_t outer = 1, len = 1, inner = 1;
    bool seen = false;
    for (size_t a = 0; a < v.dims.size(); ++a) {
      if (v.reduced[a]) {
        len = v.dims[a];
        seen = true;
      } else {
        (seen ? inner : outer) *= v.dims[a];
      }
    }
    return E.call("ember_reduce_f32", {E.out(I), E.in(I, ops::Reduce::Input), E.i64(outer),
                                       E.i64(len), E.i64(inner), E.i64(op)});
  }
  return E.call(kernelFor("ember_reduce_" + how, x.kind),
                {E.out(I), E.in(I, ops::Reduce::Input), E.scratch(I),
                 E.i64(int64_t(v.dims.size())), E.constArray(v.dims, "dims"),
                 E.constArray(v.groupStrides, "gstrides"), E.i64(v.groups), E.i64(v.count)});
}

bool supportsInputNumber(const Node &n) { return isNumber(n.getOperand(0).getType().kind); }
bool supportsResultNumber(const Node &n) { return isNumber(n.getType(0).kind); }

/// [outer, len, inner] of \p dims around \p axis.
struct AxisSplit {
  int64_t outer, len, inner;
};
AxisSplit splitAt(ArrayRef<dim_t> dims, size_t axis) {
  return {dimsProduct(dims, 0, axis), int64_t(dims[axis]),
          dimsProduct(dims, axis + 1, dims.size())};
}

Error emitArgSelect(Emitter &E, const Instruction &I) {
  const Type &x = I.getInput(0)->getType();
  AxisSplit s = splitAt(x.dims, size_t(I.attr<AttrKind::Axis>()));
  const char *base = I.getKind() == InstrKind::ArgMax ? "ember_argmax" : "ember_argmin";
  return E.call(kernelFor(base, x.kind),
                {E.out(I), E.in(I, 0), E.i64(s.outer), E.i64(s.len), E.i64(s.inner),
                 E.i64(I.attr<AttrKind::SelectLastIndex>() != 0)});
}

Error emitCumSum(Emitter &E, const Instruction &I) {
  const Type &x = I.getInput(ops::CumSum::Input)->getType();
  AxisSplit s = splitAt(x.dims, size_t(I.attr<AttrKind::Axis>()));
  return E.call(kernelFor("ember_cumsum", x.kind),
                {E.out(I), E.in(I, ops::CumSum::Input), E.i64(s.outer), E.i64(s.len),
                 E.i64(s.inner), E.i64(I.attr<AttrKind::Exclusive>() != 0),
                 E.i64(I.attr<AttrKind::Reverse>() != 0)});
}

uint64_t topKScratch(const Instruction &I, int64_t /*threads*/) {
  const Type &x = I.getInput(ops::TopK::Input)->getType();
  return uint64_t(x.dims[size_t(I.attr<AttrKind::Axis>())]) * 2 * 8;
}

Error emitTopK(Emitter &E, const Instruction &I) {
  const Type &x = I.getInput(ops::TopK::Input)->getType();
  AxisSplit s = splitAt(x.dims, size_t(I.attr<AttrKind::Axis>()));
  return E.call(kernelFor("ember_topk", x.kind),
                {E.out(I, ops::TopK::Values), E.out(I, ops::TopK::Indices),
                 E.in(I, ops::TopK::Input), E.scratch(I), E.i64(s.outer), E.i64(s.len),
                 E.i64(s.inner), E.i64(I.attr<AttrKind::Count>()),
                 E.i64(I.attr<AttrKind::Largest>() != 0)});
}

// The kernel's limits (kernels/ReduceSelect.cpp).
constexpr size_t kEinsumMaxOps = 16, kEinsumMaxLabels = 64;

/// Einsum's labels numbered as the Interpreter numbers them: the output's first, then the
/// others in order of first appearance; their sizes, and each operand's stride per label.
struct EinsumPlan {
  SmallVector<int64_t, 8> sizes;
  SmallVector<int64_t, 16> strides; ///< [operand][label]
  size_t numOut = 0;
};
template <typename TypeOf>
EinsumPlan planEinsum(ArrayRef<int64_t> inLabels, ArrayRef<int64_t> outLabels, unsigned numOps,
                      TypeOf typeOf) {
  EinsumPlan p;
  DenseMap<int64_t, unsigned> slot;
  for (int64_t label : outLabels)
    slot.try_emplace(label, slot.size());
  p.numOut = slot.size();
  p.sizes.resize(slot.size(), 0);
  size_t next = 0;
  for (unsigned op = 0; op < numOps; ++op)
    for (dim_t d : typeOf(op).dims) {
      auto [it, inserted] = slot.try_emplace(inLabels[next++], slot.size());
      if (inserted)
        p.sizes.push_back(int64_t(d));
      p.sizes[it->second] = int64_t(d);
    }
  size_t numLabels = p.sizes.size();
  p.strides.assign(numOps * numLabels, 0);
  next = 0;
  for (unsigned op = 0; op < numOps; ++op) {
    SmallVector<int64_t, 6> s = rowMajorStrides(typeOf(op).dims);
    for (size_t d = 0; d < s.size(); ++d)
      p.strides[op * numLabels + slot[inLabels[next++]]] += s[d];
  }
  return p;
}

bool supportsEinsum(const Node &n) {
  if (!isNumber(n.getType(0).kind) || n.getNumOperands() > kEinsumMaxOps)
    return false;
  EinsumPlan p = planEinsum(n.attr<AttrKind::InputLabels>(), n.attr<AttrKind::OutputLabels>(),
                            n.getNumOperands(),
                            [&](unsigned op) { return n.getOperand(op).getType(); });
  return p.sizes.size() <= kEinsumMaxLabels;
}

Error emitEinsum(Emitter &E, const Instruction &I) {
  unsigned numOps = I.getNumInputs();
  EinsumPlan p = planEinsum(I.attr<AttrKind::InputLabels>(), I.attr<AttrKind::OutputLabels>(),
                            numOps, [&](unsigned op) { return I.getInput(op)->getType(); });
  if (numOps > kEinsumMaxOps || p.sizes.size() > kEinsumMaxLabels)
    return instrError(I, "too many operands or labels for the CPU einsum kernel");
  // The operands' addresses in an array on the entry function's stack.
  IRBuilder<> &B = E.builder();
  llvm::Function *F = B.GetInsertBlock()->getParent();
  IRBuilder<> entry(&F->getEntryBlock(), F->getEntryBlock().getFirstInsertionPt());
  llvm::ArrayType *arrTy = llvm::ArrayType::get(B.getPtrTy(), numOps);
  Value *arr = entry.CreateAlloca(arrTy, nullptr, "einsum.operands");
  for (unsigned op = 0; op < numOps; ++op)
    B.CreateStore(E.in(I, op), B.CreateConstInBoundsGEP2_64(arrTy, arr, 0, op));
  return E.call(kernelFor("ember_einsum", I.getOutput(0)->getType().kind),
                {E.out(I), arr, E.i64(numOps), E.i64(int64_t(p.numOut)),
                 E.i64(int64_t(p.sizes.size() - p.numOut)), E.constArray(p.sizes, "sizes"),
                 E.constArray(p.strides, "strides")});
}

bool supportsNLLLoss(const Node &n) {
  ElemKind t = n.getOperand(ops::NLLLoss::Target).getType().kind;
  return isFloatKind(n.getType(0).kind) && (t == ElemKind::Int32 || t == ElemKind::Int64);
}

Error emitNLLLoss(Emitter &E, const Instruction &I) {
  const Type &x = I.getInput(ops::NLLLoss::Input)->getType();
  const Type &target = I.getInput(ops::NLLLoss::Target)->getType();
  const std::string &how = I.attr<AttrKind::Reduction>();
  int64_t mode = how == "none" ? 0 : how == "sum" ? 1 : how == "mean" ? 2 : -1;
  if (mode < 0)
    return instrError(I, "unknown reduction '" + how + "'");
  const std::vector<int64_t> &ignore = I.attr<AttrKind::IgnoreIndex>();
  std::string kernel = kernelFor("ember_nllloss", x.kind) +
                       (target.kind == ElemKind::Int32 ? "_i32" : "_i64");
  return E.callChecked(
      kernel,
      {E.out(I), E.in(I, ops::NLLLoss::Input), E.in(I, ops::NLLLoss::Target),
       E.in(I, ops::NLLLoss::Weight), E.i64(int64_t(x.dims[0])), E.i64(int64_t(x.dims[1])),
       E.i64(dimsProduct(x.dims, 2, x.dims.size())), E.i64(mode), E.i64(ignore.empty() ? 0 : 1),
       E.i64(ignore.empty() ? 0 : ignore[0])},
      I, "a target is not a class index in [0, " + std::to_string(x.dims[1]) + ")");
}

} // namespace

void addReduceDetKernels(KernelTable &t); // CodeGenReduceDet.cpp
void addReduceEmbeddingBagKernels(KernelTable &t); // CodeGenReduceEmbeddingBag.cpp

void addReduceKernels(KernelTable &t) {
  t.add(NodeKind::Reduce, supportsReduce, emitReduce, reduceScratch);
  t.add(NodeKind::ArgMax, supportsInputNumber, emitArgSelect);
  t.add(NodeKind::ArgMin, supportsInputNumber, emitArgSelect);
  t.add(NodeKind::CumSum, supportsResultNumber, emitCumSum);
  t.add(NodeKind::TopK, supportsResultNumber, emitTopK, topKScratch);
  t.add(NodeKind::Einsum, supportsEinsum, emitEinsum);
  t.add(NodeKind::NLLLoss, supportsNLLLoss, emitNLLLoss);
  addReduceDetKernels(t);
  addReduceEmbeddingBagKernels(t);
}

} // namespace cpu
} // namespace ember
