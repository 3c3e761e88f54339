// The OpenCL backend's run-time control flow: IRGen places the bodies of If and Loop inline
// between markers (IR.h: IfBegin ... LoopEnd), and here each marker becomes a control step of
// the runtime's program (runtime/Runtime.h's ember_ocl_control), which the host runs between
// the launches: it reads a condition or trip count back from the device, jumps, and keeps a
// loop's iteration number, writing it where the body's kernels read it. A StoreIteration (a
// scan output's slice) is a control step too: a buffer copy at an offset only the host knows.
#include "LaunchBuilder.h"
#include "runtime/Runtime.h"

#include "ember/Support/Error.h"

#include <algorithm>

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> ControlFlowPlanner::plan(LaunchBuilder &b, const Instruction &I) {
  InstrKind kind = I.getKind();
  if (!isControlMarker(kind) && kind != InstrKind::StoreIteration)
    return false;
  // The IR verifier checks the nesting; an IR that skipped it gets an error, not a crash.
  auto innermost = [&](InstrKind opened) -> Expected<Open> {
    if (open_.empty() || open_.back().marker->getKind() != opened)
      return makeError("a " + I.getKindName() + " outside a region of " +
                       instrKindName(opened));
    return open_.back();
  };
  switch (kind) {
  case InstrKind::IfBegin:
    // Its else target is known at the IfElse.
    open_.push_back({b.addControl(I, EMBER_OCL_IF, {placeOf(I.getOperand(0)), 0}), &I});
    return true;
  case InstrKind::IfElse: {
    EMBER_ASSIGN_OR_RETURN(Open begin, innermost(InstrKind::IfBegin));
    size_t jump = b.addControl(I, EMBER_OCL_JUMP, {0}); // past IfEnd, known there
    b.setOperand(begin.step, 1, int64_t(b.nextStep()));
    open_.back() = {jump, &I};
    return true;
  }
  case InstrKind::IfEnd: {
    EMBER_ASSIGN_OR_RETURN(Open jump, innermost(InstrKind::IfElse));
    b.setOperand(jump.step, 0, int64_t(b.nextStep()));
    open_.pop_back();
    return true;
  }
  case InstrKind::LoopBegin: {
    int64_t bound = I.attr<AttrKind::MaxTripCount>();
    size_t step = b.addControl(
        I, EMBER_OCL_LOOP_BEGIN,
        {placeOf(I.getOperand(0)), placeOf(I.getOperand(1)), placeOf(I.getOperand(2)), bound,
         0 /* the exit, known at LoopEnd */},
        // The Interpreter's words (Interpreter.cpp's loop test).
        ("the loop would run more than its bound of " + Twine(bound) +
         " iterations (-max-loop-iterations)")
            .str());
    open_.push_back({step, &I});
    return true;
  }
  case InstrKind::LoopEnd: {
    EMBER_ASSIGN_OR_RETURN(Open begin, innermost(InstrKind::LoopBegin));
    b.addControl(I, EMBER_OCL_LOOP_END, {int64_t(begin.step)});
    b.setOperand(begin.step, 4, int64_t(b.nextStep()));
    open_.pop_back();
    return true;
  }
  case InstrKind::StoreIteration: {
    // The loop whose iteration this is: the one that owns the iter operand.
    IRValue *dest = I.getOperand(0), *value = I.getOperand(1), *iter = I.getOperand(2);
    auto loop = std::find_if(open_.rbegin(), open_.rend(), [&](const Open &o) {
      return o.marker->getKind() == InstrKind::LoopBegin && o.marker->getOperand(0) == iter;
    });
    if (loop == open_.rend())
      return makeError("a storeiteration outside the loop of its iteration number");
    const Type &slices = dest->getType();
    if (slices.dims.empty())
      return makeError("a storeiteration into a scalar");
    b.addControl(I, EMBER_OCL_STORE_ITERATION,
                 {placeOf(dest), placeOf(value), int64_t(value->sizeInBytes()),
                  int64_t(slices.dims[0]), int64_t(loop->step)},
                 ("the iteration is past the scan output's " + Twine(slices.dims[0]) + " slices")
                     .str());
    return true;
  }
  default:
    return false;
  }
}

Error ControlFlowPlanner::finish() const {
  if (open_.empty())
    return Error::success();
  return makeError("the region of '" + open_.back().marker->getName() + "' (" +
                   open_.back().marker->getKindName() + ") is never closed");
}

} // namespace opencl
} // namespace ember
