// The FLOP model of the products: what -profile divides by time, what backends split work by.
#include "ember/IR/IR.h"

namespace ember {

int64_t productFlops(const Instruction &I) {
  if (I.getNumOutputs() == 0)
    return 0;
  auto product = [](const DimsVec &d, size_t begin) {
    int64_t p = 1;
    for (size_t i = begin; i < d.size(); ++i)
      p *= int64_t(d[i]);
    return p;
  };
  int64_t out = int64_t(I.getOutput()->getType().numElements());
  switch (I.getKind()) {
  case InstrKind::Conv:
  case InstrKind::FusedConv: // each result: a filter's worth (Cin/G x kernel) of products
    return 2 * out * product(I.getInput(ops::Conv::Filter)->getType().dims, 1);
  case InstrKind::ConvTranspose: { // each input element meets Cout/G x kernel filter taps
    const DimsVec &f = I.getInput(ops::ConvTranspose::Filter)->getType().dims;
    return 2 * int64_t(I.getInput(ops::ConvTranspose::Input)->getType().numElements()) *
           product(f, 1);
  }
  case InstrKind::MatMul:
  case InstrKind::FusedMatMul:
    return 2 * out * int64_t(I.getInput(ops::MatMul::LHS)->getType().dims.back());
  case InstrKind::FullyConnected:
    return 2 * out * int64_t(I.getInput(ops::FullyConnected::Weights)->getType().dims[0]);
  case InstrKind::IntegerConv: // integer multiply-adds, counted as Conv's
    return 2 * out * product(I.getInput(ops::IntegerConv::Filter)->getType().dims, 1);
  case InstrKind::IntegerMatMul:
    return 2 * out * int64_t(I.getInput(ops::IntegerMatMul::LHS)->getType().dims.back());
  default:
    return 0;
  }
}

} // namespace ember
