// Lowerings of the products (Nodes/NN.def). A fused product is defined as its plain product
// followed by the activation node, rounded to the result kind in between, so the subgraph
// computes the same values on every float kind (the fused kernels exist to save a pass over the
// result, not to compute differently). A grouped convolution is, by definition, independent
// convolutions of channel groups side by side.
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

/// The window attributes of convolution \p n, with \p group groups.
AttrList convAttrs(const Node &n, int64_t group) {
  AttrList attrs;
  attrs.set<AttrKind::Kernels>(n.attr<AttrKind::Kernels>())
      .set<AttrKind::Strides>(n.attr<AttrKind::Strides>())
      .set<AttrKind::Pads>(n.attr<AttrKind::Pads>())
      .set<AttrKind::Dilations>(n.attr<AttrKind::Dilations>())
      .set<AttrKind::Group>(group);
  return attrs;
}

bool lowerFusedConv(Function &F, Node &n) {
  Builder b(F, n);
  NodeValue conv = b.create(NodeKind::Conv,
                            {n.getOperand(ops::FusedConv::Input),
                             n.getOperand(ops::FusedConv::Filter),
                             n.getOperand(ops::FusedConv::Bias)},
                            convAttrs(n, n.attr<AttrKind::Group>()));
  return b.replace({activationOf(b, n, conv)});
}

bool lowerGroupedConv(Function &F, Node &n) {
  namespace C = ops::Conv;
  int64_t groups = n.attr<AttrKind::Group>();
  if (groups <= 1)
    return false;
  Builder b(F, n);
  // Group g reads input channels [g * C/G, (g + 1) * C/G) and writes output channels
  // [g * K/G, (g + 1) * K/G) with the filters (and biases) of those.
  dim_t G = dim_t(groups), inPerGroup = n.getOperand(C::Input).getType().dims[1] / G,
        outPerGroup = n.getType().dims[1] / G;
  std::vector<NodeValue> parts;
  for (dim_t g = 0; g < G; ++g)
    parts.push_back(b.create(
        NodeKind::Conv,
        {b.slice(n.getOperand(C::Input), 1, g * inPerGroup, inPerGroup),
         b.slice(n.getOperand(C::Filter), 0, g * outPerGroup, outPerGroup),
         b.slice(n.getOperand(C::Bias), 0, g * outPerGroup, outPerGroup)},
        convAttrs(n, 1)));
  AttrList concat;
  concat.set<AttrKind::Axis>(1);
  return b.replace({b.create(NodeKind::Concat, parts, std::move(concat))});
}

} // namespace ember
