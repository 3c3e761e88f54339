// The OpenCL launches of reductions (kernels/Reduce.cl), and through LaunchesDet.cpp and
// LaunchesEmbeddingBag.cpp of Det and EmbeddingBag.
#include "KernelTable.h"

#include "ember/Support/Error.h"

#include <iterator>

using namespace llvm;

namespace ember {
namespace opencl {

void addReduceDetKernels(KernelTable &t);          // LaunchesDet.cpp
void addReduceEmbeddingBagKernels(KernelTable &t); // LaunchesEmbeddingBag.cpp

namespace {

/// Reduction names in the order of Reduce.cl's op codes.
const char *const kReductions[] = {"sum",        "mean", "max", "min",     "prod",
                                   "sum_square", "l1",   "l2",  "log_sum", "log_sum_exp"};

int64_t reductionCode(StringRef how) {
  for (int64_t k = 0; k < int64_t(std::size(kReductions)); ++k)
    if (how == kReductions[k])
      return k;
  return -1;
}

/// Every kind the Interpreter reduces: the numeric ones (not bool, not quantized).
bool isNumericKind(ElemKind k) { return k != ElemKind::Bool && !isQuantizedKind(k); }

Expected<bool> planReduce(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  const AttrList &a = I.getAttrs();
  int64_t op = reductionCode(a.get<AttrKind::Reduction>());
  if (op < 0)
    return makeError("reduction '" + a.get<AttrKind::Reduction>() + "' does not run on OpenCL");
  ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
  std::vector<int64_t> is = stridesOf(id);
  std::vector<bool> reduced(id.size(), false);
  for (int64_t ax : a.get<AttrKind::Axes>())
    reduced[size_t(ax)] = true;
  // The input as runs of kept and of reduced dims: dims of size 1 add nothing, and neighbours
  // of the same kind merge (row-major, so the outer one's stride spans the inner one).
  struct Run {
    int64_t dim, stride;
    bool reduced;
  };
  std::vector<Run> runs;
  for (size_t d = 0; d < id.size(); ++d) {
    if (id[d] == 1)
      continue;
    if (!runs.empty() && runs.back().reduced == reduced[d]) {
      runs.back().dim *= int64_t(id[d]);
      runs.back().stride = is[d];
    } else {
      runs.push_back({int64_t(id[d]), is[d], reduced[d]});
    }
  }
  std::vector<int64_t> kept, red;
  int64_t cells = 1;
  for (size_t r = runs.size(); r-- > 0;) {
    std::vector<int64_t> &to = runs[r].reduced ? red : kept;
    to.insert(to.end(), {runs[r].dim, runs[r].stride});
    if (runs[r].reduced)
      cells *= runs[r].dim;
  }
  std::vector<int64_t> p = {placeOf(I.getOutput()),   placeOf(I.getInput(0)), op, cells,
                            int64_t(kept.size() / 2), int64_t(red.size() / 2)};
  p.insert(p.end(), kept.begin(), kept.end());
  p.insert(p.end(), red.begin(), red.end());
  return b.add(I, ("reduce_" + kindSuffix(out.kind)).str(), out.numElements(), p);
}

bool supportsReduce(const Node &n) {
  return isNumericKind(n.getType(0).kind) && reductionCode(n.attr<AttrKind::Reduction>()) >= 0;
}

} // namespace

void addReduceKernels(KernelTable &t) {
  t.add(NodeKind::Reduce, supportsReduce, planReduce);
  addReduceDetKernels(t);
  addReduceEmbeddingBagKernels(t);
}

} // namespace opencl
} // namespace ember
