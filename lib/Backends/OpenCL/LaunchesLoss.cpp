// The OpenCL launches of losses: NLLLoss (kernels/Loss.cl).
#include "KernelTable.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

/// Loss.cl's reduction codes.
int64_t lossReduction(StringRef how) {
  return how == "none" ? 0 : how == "sum" ? 1 : how == "mean" ? 2 : -1;
}

Expected<bool> planLoss(LaunchBuilder &b, const Instruction &I) {
  const Type &x = I.getInput(ops::NLLLoss::Input)->getType();
  int64_t mode = lossReduction(I.attr<AttrKind::Reduction>());
  if (mode < 0)
    return makeError("reduction '" + I.attr<AttrKind::Reduction>() + "' does not run on OpenCL");
  const std::vector<int64_t> &ignore = I.attr<AttrKind::IgnoreIndex>();
  int64_t N = int64_t(x.dims[0]), C = int64_t(x.dims[1]), D = 1;
  for (size_t d = 2; d < x.dims.size(); ++d)
    D *= int64_t(x.dims[d]);
  // Reduction none: a work-item per target; sum and mean: one adding them all in order.
  uint64_t count = mode == 0 ? uint64_t(N * D) : 1;
  return b.add(
      I, ("nllloss_" + kindSuffix(x.kind)).str(), count,
      {placeOf(I.getOutput()), placeOf(I.getInput(ops::NLLLoss::Input)),
       placeOf(I.getInput(ops::NLLLoss::Target)), placeOf(I.getInput(ops::NLLLoss::Weight)),
       int64_t(I.getInput(ops::NLLLoss::Target)->getType().kind == ElemKind::Int64),
       int64_t(!ignore.empty()), ignore.empty() ? 0 : ignore[0], mode, C, D, N * D},
      kDefaultGroup,
      ("a target that is not ignored is not a class index in [0, " + Twine(C) + ")").str());
}

bool supportsLoss(const Node &n) {
  return isFloatKind(n.getType(0).kind) && lossReduction(n.attr<AttrKind::Reduction>()) >= 0;
}

} // namespace

void addLossKernels(KernelTable &t) { t.add(NodeKind::NLLLoss, supportsLoss, planLoss); }

} // namespace opencl
} // namespace ember
