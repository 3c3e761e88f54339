// The memory verifier (MemoryPlan.h): checks the plan on the addresses themselves, independently
// of how the passes and the allocator reasoned, so a bug in either shows up as a clear error
// at compile time instead of wrong numbers at run time.
#include "ember/IROptimizer/MemoryPlan.h"
#include "ember/Base/Tensor.h"
#include "ember/IR/ByteRanges.h"
#include "ember/Support/Error.h"


using namespace llvm;

namespace ember {

namespace {

/// Where a value's bytes are: region and [begin, end).
struct Span {
  MemRegion region;
  uint64_t begin, end;
  bool overlaps(const Span &o) const {
    return region == o.region && begin < o.end && o.begin < end;
  }
  bool operator==(const Span &o) const {
    return region == o.region && begin == o.begin && end == o.end;
  }
};

Span spanOf(const IRValue *v) {
  return {regionOf(v), v->offset, v->offset + v->sizeInBytes()};
}

class MemoryVerifier {
  const IRFunction &IR_;
  Error errs_ = Error::success();
  ByteRanges written_[3]; // per MemRegion
  std::vector<const Instruction *> live_;

  void fail(const Twine &why) {
    errs_ = joinErrors(std::move(errs_), makeError("memory plan: " + why));
  }
  uint64_t regionSize(MemRegion r) const {
    switch (r) {
    case MemRegion::Constant:
      return IR_.constantSize;
    case MemRegion::Mutable:
      return IR_.mutableSize;
    case MemRegion::Activations:
      return IR_.activationsSize;
    }
    return 0;
  }

  static bool isOutput(const WeightVar &w) {
    return w.getOrigin()->getKind() == NodeKind::Placeholder &&
           static_cast<const Placeholder *>(w.getOrigin())->isSaveTarget();
  }

  void checkPlaced(const IRValue *v) {
    if (v->offset == kUnplanned)
      return fail("'" + v->getName() + "' has no offset");
    if (v->offset % kTensorAlignment && !isTensorView(v))
      fail("'" + v->getName() + "' at offset " + Twine(v->offset) + " is not " +
           Twine(kTensorAlignment) + "-byte aligned");
    Span s = spanOf(v);
    if (s.end > regionSize(s.region))
      fail("'" + v->getName() + "' ends at " + Twine(s.end) + ", past the " +
           memRegionName(s.region) + " region's " + Twine(regionSize(s.region)) + " bytes");
  }

  void allocate(const Instruction &A) {
    checkPlaced(&A);
    Span s = spanOf(&A);
    s.end = std::max(s.end, s.begin + 1); // an empty buffer still owns its address
    for (const Instruction *o : live_) {
      Span os = spanOf(o);
      os.end = std::max(os.end, os.begin + 1);
      if (s.overlaps(os))
        fail("live activations '" + A.getName() + "' [" + Twine(s.begin) + ", " + Twine(s.end) +
             ") and '" + o->getName() + "' [" + Twine(os.begin) + ", " + Twine(os.end) +
             ") overlap");
    }
    live_.push_back(&A);
  }

  void free(const IRValue *A) {
    live_.erase(std::remove(live_.begin(), live_.end(), A), live_.end());
    Span s = spanOf(A);
    written_[unsigned(s.region)].remove(s.begin, s.end);
  }

  void view(const Instruction &V) {
    checkPlaced(&V);
    const IRValue *base = V.getOperand(0);
    if (V.offset != base->offset + V.viewOffset)
      fail("view '" + V.getName() + "' is at " + Twine(V.offset) + ", not at its base's " +
           Twine(base->offset) + " + " + Twine(V.viewOffset));
  }

  /// An instruction's scratch: inside the activations region, aligned, and clear of every
  /// live activation (its operands included).
  void checkScratch(const Instruction &I, const Twine &where) {
    if (I.scratchOffset == kUnplanned)
      return fail(where + ": its " + Twine(I.scratchSize) + " bytes of scratch are not placed");
    Span s{MemRegion::Activations, I.scratchOffset, I.scratchOffset + I.scratchSize};
    if (s.begin % kTensorAlignment || s.end > IR_.activationsSize)
      fail(where + ": scratch [" + Twine(s.begin) + ", " + Twine(s.end) +
           ") is misaligned or outside the activations region");
    for (const Instruction *o : live_)
      if (s.overlaps(spanOf(o)))
        fail(where + ": scratch [" + Twine(s.begin) + ", " + Twine(s.end) +
             ") overlaps live activation '" + o->getName() + "'");
  }

  void compute(const Instruction &I, unsigned index) {
    // A string, not a Twine: a Twine returned from here would point at dead temporaries.
    auto where = [&]() -> std::string {
      return ("instruction " + Twine(index) + " '" + I.getName() + "' (" + I.getKindName() + ")")
          .str();
    };
    if (I.scratchSize)
      checkScratch(I, where());
    ArrayRef<InstrOperand> ops = I.getOperands();
    for (unsigned o = 0; o < ops.size(); ++o) {
      if (ops[o].mode == OperandMode::In)
        continue;
      Span out = spanOf(ops[o].value);
      for (unsigned i = 0; i < ops.size(); ++i) {
        if (i == o)
          continue;
        Span other = spanOf(ops[i].value);
        if (!out.overlaps(other))
          continue;
        bool inPlace = ops[i].mode == OperandMode::In && ops[o].mode == OperandMode::InOut &&
                       out == other && i >= I.getNumOutputs() &&
                       canWriteInPlace(I, i - I.getNumOutputs());
        if (!inPlace)
          fail(where() + ": writes '" + ops[o].value->getName() + "' over '" +
               ops[i].value->getName() + "', which it also " +
               (ops[i].mode == OperandMode::In ? "reads" : "writes"));
      }
    }
    for (unsigned o = 0; o < ops.size(); ++o) {
      const InstrOperand &op = ops[o];
      // A scan output is written one iteration's slice at a time, never read here.
      if (op.mode == OperandMode::Out || (I.getKind() == InstrKind::StoreIteration && o == 0))
        continue;
      {
        Span s = spanOf(op.value);
        if (!written_[unsigned(s.region)].contains(s.begin, s.end))
          fail(where() + ": reads '" + op.value->getName() + "' (" + memRegionName(s.region) +
               " [" + Twine(s.begin) + ", " + Twine(s.end) + ")) before all of it is written");
      }
    }
    for (const InstrOperand &op : ops)
      if (op.mode != OperandMode::In) {
        Span s = spanOf(op.value);
        written_[unsigned(s.region)].add(s.begin, s.end);
      }
  }

public:
  explicit MemoryVerifier(const IRFunction &IR) : IR_(IR) {}

  Error run() {
    // Weights: constants and model inputs hold data from the start and are never written (the
    // inputs are the caller's); outputs (Save targets) must be written before being read.
    for (const auto &w : IR_.getWeights()) {
      checkPlaced(w.get());
      if (!isOutput(*w)) {
        Span s = spanOf(w.get());
        written_[unsigned(s.region)].add(s.begin, s.end);
      }
    }
    unsigned index = 0;
    for (const auto &I : IR_.getInstrs()) {
      switch (I->getKind()) {
      case InstrKind::AllocActivation:
        allocate(*I);
        break;
      case InstrKind::DeallocActivation:
        free(I->getOperand(0));
        break;
      case InstrKind::TensorView:
        view(*I);
        break;
      default:
        compute(*I, index);
        for (const InstrOperand &op : I->getOperands()) {
          auto *w = dyn_cast<WeightVar>(rootOf(op.value).root);
          if (op.mode != OperandMode::In && w && !isOutput(*w))
            fail("instruction " + Twine(index) + " '" + I->getName() + "' writes " +
                 (w->isConstant() ? "constant '" : "model input '") + w->getName() + "'");
        }
      }
      ++index;
    }
    for (const auto &w : IR_.getWeights()) {
      Span s = spanOf(w.get());
      if (isOutput(*w) &&
          !written_[unsigned(s.region)].contains(s.begin, s.end))
        fail("output '" + w->getName() + "' is not written in full");
    }
    return std::move(errs_);
  }
};

} // namespace

Error verifyMemoryPlan(const IRFunction &IR) { return MemoryVerifier(IR).run(); }

} // namespace ember
