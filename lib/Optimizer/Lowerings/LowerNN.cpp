// Lowerings of the fused products (Nodes/NN.def): each is defined as its plain product followed
// by the activation node, rounded to the result kind in between, so the subgraph computes the
// same values bit for bit on every float kind (the fused kernels exist to save a pass over the
// result, not to compute differently).
#include "Lowerings.h"

using namespace llvm;

namespace ember {

using namespace lowering;

namespace {

NodeValue activationOf(Builder &b, const Node &n, NodeValue product) {
  return b.activation(n.attr<AttrKind::FusedActivation>(),
                      n.attr<AttrKind::FusedActivationArgs>(), product);
}

} // namespace

bool lowerFullyConnected(Function &F, Node &n) {
  namespace FC = ops::FullyConnected;
  Builder b(F, n);
  // Input [.., K] as rows [M, K]: MatMul wants equal ranks, and Weights is [K, N].
  const Type &x = n.getOperand(FC::Input).getType();
  const DimsVec &out = n.getType().dims;
  dim_t K = x.dims.back(), N = out.back(), M = 1;
  for (size_t d = 0; d + 1 < x.rank(); ++d)
    M *= x.dims[d];
  NodeValue rows = b.reshape(n.getOperand(FC::Input), {M, K});
  NodeValue product = b.binary(NodeKind::MatMul, rows, n.getOperand(FC::Weights));
  NodeValue biased =
      b.binary(NodeKind::Add, product, b.broadcast(n.getOperand(FC::Bias), {M, N}));
  return b.replace({b.reshape(activationOf(b, n, biased), out)});
}

bool lowerFusedMatMul(Function &F, Node &n) {
  Builder b(F, n);
  NodeValue product = b.binary(NodeKind::MatMul, n.getOperand(ops::FusedMatMul::LHS),
                               n.getOperand(ops::FusedMatMul::RHS));
  return b.replace({activationOf(b, n, product)});
}

bool lowerFusedConv(Function &F, Node &n) {
  Builder b(F, n);
  AttrList attrs;
  attrs.set<AttrKind::Kernels>(n.attr<AttrKind::Kernels>())
      .set<AttrKind::Strides>(n.attr<AttrKind::Strides>())
      .set<AttrKind::Pads>(n.attr<AttrKind::Pads>())
      .set<AttrKind::Dilations>(n.attr<AttrKind::Dilations>())
      .set<AttrKind::Group>(n.attr<AttrKind::Group>());
  NodeValue conv = b.create(NodeKind::Conv,
                            {n.getOperand(ops::FusedConv::Input),
                             n.getOperand(ops::FusedConv::Filter),
                             n.getOperand(ops::FusedConv::Bias)},
                            std::move(attrs));
  return b.replace({activationOf(b, n, conv)});
}

} // namespace ember
