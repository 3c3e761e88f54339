// recognize-silu: the SiLU (Swish with beta 1) exporters write out, torch's nn.SiLU below
// opset 24 and efficientnet's and YOLO's every block,
//   x * Sigmoid(x)      (either operand order)
// becomes the Unary silu, so that it folds into the Conv or MatMul before it (fuse-activations)
// instead of reading that product's result twice more. Safe because it is that function, bit
// for bit in float32 and float64 (ember_silu is x * ember_sigmoid(x) in the same compute type):
// both x's are the same value and the Sigmoid feeds nothing else. float32/float64 only, as the
// other recognize-* passes (RecognizePatterns.h).
#include "Passes.h"
#include "RecognizePatterns.h"

using namespace llvm;

namespace ember {

using namespace recognize;

namespace {

bool rewriteAt(Function &F, Node *root) {
  if (root->getKind() != NodeKind::Mul || !root->hasUsers() ||
      !isMatchableFloat(root->getType()))
    return false;
  for (unsigned i = 0; i < 2; ++i) {
    NodeValue x = root->getOperand(1 - i), gate = root->getOperand(i);
    if (isKind(gate, NodeKind::Sigmoid) && hasOneUse(gate) && gate.node->getOperand(0) == x &&
        x != gate)
      return replaceWithUnary(F, root, x, "silu");
  }
  return false;
}

} // namespace

bool runRecognizeSilu(Function &F, const PassContext &) {
  return pattern::rewriteEach(F, [&](Node *n) { return rewriteAt(F, n); });
}

} // namespace ember
