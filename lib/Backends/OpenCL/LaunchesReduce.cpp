// The OpenCL launches of reductions (kernels/Reduce.cl).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> planReduce(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  const AttrList &a = I.getAttrs();
  switch (I.getKind()) {
  case InstrKind::Reduce: {
    static const char *const kOps[] = {"sum",        "mean", "max", "min",    "prod",
                                       "sum_square", "l1",   "l2",  "log_sum", "log_sum_exp"};
    const std::string &r = a.get<AttrKind::Reduction>();
    int64_t op = -1;
    for (int64_t k = 0; k < 10; ++k)
      if (r == kOps[k])
        op = k;
    if (op < 0)
      return makeError("reduction '" + r + "' does not run on OpenCL");
    ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
    std::vector<int64_t> is = stridesOf(id);
    std::vector<bool> reduced(id.size(), false);
    for (int64_t ax : a.get<AttrKind::Axes>())
      reduced[size_t(ax)] = true;
    std::vector<int64_t> p = {y, in(0), op, int64_t(id.size())};
    for (size_t d = 0; d < id.size(); ++d) {
      p.push_back(int64_t(id[d]));
      p.push_back(is[d]);
      p.push_back(int64_t(reduced[d]));
    }
    return b.add(I, "reduce", n, p);
  }
  default:
    return false;
  }
}

std::optional<bool> supportsReduce(const Node &n) {
  if (n.getKind() != NodeKind::Reduce)
    return std::nullopt;
  return allFloat32(n) && n.getOperand(0).getType().rank() <= 6;
}

} // namespace opencl
} // namespace ember
