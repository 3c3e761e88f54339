// merge-pad: a constant-mode Pad with value 0 that pads only the spatial dims of the input of a
// Conv (or FusedConv), or of an AvgPool that counts padding (count_include_pad 1, ceil_mode 0),
// is dropped and its pads are added to the window's own Pads. Safe because those kernels treat
// their own padding as zeros that are skipped: a skipped tap differs from a tap on an explicit
// zero only by adding 0 * w, which is exactly 0 when w is finite (the filter must be a Constant
// with finite values; x + 0 leaves every sum as it was), and AvgPool with count_include_pad
// divides by the same window size either way (ceil_mode 0 keeps every window inside the padded
// input, so both count the same cells). Padding along N or C, another mode or value, MaxPool
// (whose padding never wins, unlike a 0) and LpPool are left alone. The Pad stays for any other
// users.
#include "FusionUtils.h"
#include "Passes.h"

using namespace llvm;

namespace ember {

using namespace fusion;

namespace {

/// Whether \p pad is a constant-mode Pad by exactly zero (either sign) of the spatial dims only.
bool isSpatialZeroPad(const Node &pad) {
  if (pad.getKind() != NodeKind::Pad || pad.attr<AttrKind::Mode>() != "constant")
    return false;
  Constant *value = asConstant(pad.getOperand(ops::Pad::Value));
  if (!value || value->getType().numElements() != 1 || value->getPayload().elementAsDouble(0) != 0)
    return false;
  const std::vector<int64_t> &pads = pad.attr<AttrKind::Pads>();
  size_t rank = pad.getType().rank();
  if (rank < 3 || pads.size() != 2 * rank)
    return false;
  return pads[0] == 0 && pads[1] == 0 && pads[rank] == 0 && pads[rank + 1] == 0;
}

/// Whether \p n's own padding stands for zeros in its input.
bool padsWithZeros(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::Conv:
  case NodeKind::FusedConv: {
    // FusedConv numbers its operands as Conv does.
    Constant *filter = asConstant(n.getOperand(ops::Conv::Filter));
    return filter && allFinite(filter->getPayload());
  }
  case NodeKind::AvgPool:
    return n.attr<AttrKind::CountIncludePad>() == 1 && n.attr<AttrKind::CeilMode>() == 0;
  default:
    return false;
  }
}

bool mergeInto(Function &F, Node *n) {
  // Conv, FusedConv and AvgPool all read their input as operand 0.
  static_assert(ops::Conv::Input == 0 && ops::FusedConv::Input == 0 && ops::AvgPool::Input == 0,
                "the windowed input is operand 0");
  Node *pad = n->getOperand(0).node;
  if (!isSpatialZeroPad(*pad) || !padsWithZeros(*n))
    return false;
  const std::vector<int64_t> &extra = pad->attr<AttrKind::Pads>();
  std::vector<int64_t> pads = n->attr<AttrKind::Pads>();
  size_t rank = pad->getType().rank(), spatial = rank - 2;
  if (pads.size() != 2 * spatial)
    return false;
  for (size_t i = 0; i < spatial; ++i) {
    pads[i] += extra[2 + i];                  // begins
    pads[spatial + i] += extra[rank + 2 + i]; // ends
  }
  AttrList attrs = n->getAttrs();
  attrs.set<AttrKind::Pads>(pads);
  SmallVector<NodeValue, 3> operands(n->getOperands().begin(), n->getOperands().end());
  operands[0] = pad->getOperand(ops::Pad::Input);
  // The shape rule refuses pads beyond its bound; then nothing changes.
  return replaceWithNew(F, n, n->getKind(), n->getName(), operands, std::move(attrs));
}

} // namespace

bool runMergePad(Function &F, const PassContext &) {
  bool changed = false;
  for (Node *n : F.topologicalOrder()) {
    NodeKind k = n->getKind();
    if (k == NodeKind::Conv || k == NodeKind::FusedConv || k == NodeKind::AvgPool)
      changed |= mergeInto(F, n);
  }
  return changed;
}

} // namespace ember
