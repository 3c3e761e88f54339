#include "KernelTable.h"

#include "ember/Support/Error.h"

#include <cstring>

using namespace llvm;

namespace ember {
namespace opencl {

int64_t floatBits(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, 4);
  return int64_t(uint32_t(bits));
}

int64_t placeOf(IRValue *v) {
  ValueRoot r = rootOf(v);
  return int64_t(regionOf(v)) << 48 | int64_t(r.root->offset + r.offset);
}

std::vector<int64_t> stridesOf(ArrayRef<dim_t> dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    s[i - 1] = s[i] * int64_t(dims[i]);
  return s;
}

Expected<bool> LaunchBuilder::add(const Instruction &I, StringRef kernel, uint64_t count,
                                  ArrayRef<int64_t> params, size_t group,
                                  StringRef failure) {
  if (count == 0)
    return true;
  plan_.launches.push_back({&I, kernel.str(), count, plan_.params.size(), group, failure.str()});
  plan_.params.push_back(int64_t(count));
  plan_.params.insert(plan_.params.end(), params.begin(), params.end());
  return true;
}

size_t LaunchBuilder::addControl(const Instruction &I, uint64_t control,
                                 ArrayRef<int64_t> operands, StringRef failure) {
  plan_.launches.push_back({&I, "", 0, plan_.params.size(), 0, failure.str(), control});
  plan_.params.insert(plan_.params.end(), operands.begin(), operands.end());
  return plan_.launches.size() - 1;
}

Expected<bool> LaunchBuilder::copyND(const Instruction &I, int64_t y, int64_t x, int64_t fill,
                                     size_t elemBytes, ArrayRef<std::array<int64_t, 6>> dims) {
  uint64_t count = 1;
  std::vector<int64_t> p = {y, x, fill, int64_t(dims.size())};
  for (const auto &d : dims) {
    count *= uint64_t(d[0]);
    p.insert(p.end(), d.begin(), d.end());
  }
  return add(I, "copy_nd_" + std::to_string(elemBytes), count, p);
}

bool LaunchBuilder::unreadFrom(Iter from, Iter end, IRValue *v) {
  IRValue *root = rootOf(v).root;
  if (!isAllocation(root))
    return false;
  // Loops entered on the way; the end of one not entered goes back to instructions before
  // `from`, which may read v (a loop's state, allocated outside it).
  unsigned loops = 0;
  for (; from != end; ++from) {
    const Instruction &I = **from;
    if (I.getKind() == InstrKind::LoopBegin)
      ++loops;
    if (I.getKind() == InstrKind::LoopEnd && loops-- == 0)
      return false;
    bool dealloc = I.getKind() == InstrKind::DeallocActivation;
    for (const InstrOperand &op : I.getOperands())
      if (rootOf(op.value).root == root)
        return dealloc;
  }
  return false;
}

Expected<bool> LaunchBuilder::copyStrided(const Instruction &I, int64_t y, int64_t x,
                                          size_t elemBytes, ArrayRef<std::array<int64_t, 3>> dims) {
  std::vector<std::array<int64_t, 3>> m;
  uint64_t count = 1;
  for (const auto &d : dims) {
    count *= uint64_t(d[0]);
    if (d[0] == 1)
      continue;
    if (!m.empty() && m.back()[1] == d[0] * d[1] && m.back()[2] == d[0] * d[2]) {
      m.back() = {m.back()[0] * d[0], d[1], d[2]};
      continue;
    }
    m.push_back(d);
  }
  if (count == 0)
    return true;
  if (m.empty())
    m.push_back({1, 1, 1});
  const auto &inner = m.back();
  // Runs shorter than a vector would leave the copy by runs doing copy_nd's index walk per run
  // for little gain; 8 keeps a transpose that moves the last axis on copy_nd.
  if (inner[1] == 1 && (inner[2] == 1 || inner[2] == 0) && (inner[0] >= 8 || m.size() == 1)) {
    // COPY_RUNS_CHUNK (DataMovement.cl): elements per work-item.
    constexpr int64_t kChunk = 64;
    int64_t chunks = (inner[0] + kChunk - 1) / kChunk;
    std::vector<int64_t> p = {y, x, inner[0], inner[2], chunks, int64_t(m.size() - 1)};
    for (size_t d = 0; d + 1 < m.size(); ++d)
      p.insert(p.end(), m[d].begin(), m[d].end());
    return add(I, "copy_runs_" + std::to_string(elemBytes), count / uint64_t(inner[0]) * chunks,
               p);
  }
  std::vector<std::array<int64_t, 6>> nd;
  for (const auto &d : m)
    nd.push_back({d[0], d[1], d[0], d[2], 0, 1});
  return copyND(I, y, x, -1, elemBytes, nd);
}

namespace {

/// The row of \p I's kind plans it (KernelTable.cpp); memory markers need no launch.
Error planInstruction(LaunchBuilder &b, const Instruction &I) {
  if (isMemoryMarker(I.getKind()))
    return Error::success();
  if (const KernelEntry *e = kernelTable().lookup(I)) {
    EMBER_ASSIGN_OR_RETURN(bool planned, e->plan(b, I));
    if (planned)
      return Error::success();
  }
  return makeError("no OpenCL kernel");
}

using Iter = IRFunction::InstrList::const_iterator;

/// The next instruction after \p it that computes (skipping allocations and deallocations:
/// not views, which a fusion would have to see through).
Iter nextComputing(Iter it, Iter end) {
  for (++it; it != end; ++it) {
    InstrKind k = (*it)->getKind();
    if (k != InstrKind::AllocActivation && k != InstrKind::DeallocActivation)
      break;
  }
  return it;
}

} // namespace

Expected<LaunchPlan> planLaunches(const IRFunction &IR) {
  LaunchPlan plan;
  LaunchBuilder b(plan);
  const IRFunction::InstrList &list = IR.getInstrs();
  auto context = [](const Instruction &I) {
    return "instruction '" + I.getName() + "' (" + I.getKindName() + ")";
  };
  ControlFlowPlanner control;
  for (Iter it = list.begin(); it != list.end(); ++it) {
    const Instruction &I = **it;
    Expected<bool> isControl = control.plan(b, I);
    if (!isControl)
      return withContext(isControl.takeError(), context(I));
    if (*isControl)
      continue;
    // A chain of two that the element-wise fast path runs as one launch, attributed to the
    // first instruction; the first's result is then never written.
    if (!isMemoryMarker(I.getKind()) && I.getNumOutputs() == 1) {
      Iter next = nextComputing(it, list.end());
      if (next != list.end() && !isMemoryMarker((*next)->getKind()) &&
          (*next)->getNumOutputs() == 1) {
        Expected<bool> fused = planElementwisePair(b, I, **next, [&] {
          return LaunchBuilder::unreadFrom(std::next(next), list.end(), I.getOutput());
        });
        if (!fused)
          return withContext(fused.takeError(), context(I));
        if (*fused) {
          it = next;
          continue;
        }
      }
    }
    b.setRest(std::next(it), list.end());
    if (Error e = planInstruction(b, I))
      return withContext(std::move(e), context(I));
  }
  EMBER_TRY(control.finish());
  return std::move(plan);
}

} // namespace opencl
} // namespace ember
