// The backend-parametrized operator tests (tests/unittests/backends/*Test.cpp): a test builds a
// graph once, and it runs on the Interpreter (the reference) and on every other registered
// backend from the same inputs; the outputs must agree to the tolerance the model tests use.
// One file per operator family; each kernel's shapes are chosen to reach every code path
// (vector tails, edge tiles, padding, groups, strides, every element kind).
#ifndef EMBER_TESTS_UNITTESTS_BACKENDS_BACKENDTESTUTILS_H
#define EMBER_TESTS_UNITTESTS_BACKENDS_BACKENDTESTUTILS_H

#include "../TestUtils.h"

#include "ember/Base/Dims.h"
#include "ember/Driver/CompiledModel.h"
#include "ember/Graph/Graph.h"
#include "ember/Importer/ModelLoader.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ember {
namespace test {

/// Builds a graph into a fresh module: creates placeholders and nodes, returns the values to
/// check (each gets a Save to a placeholder "out<i>").
using GraphBuilder = std::function<std::vector<NodeValue>(Module &, Function *)>;

struct Outputs {
  std::vector<Tensor> tensors;
  std::string error;
};

/// Values for an input of type \p ty: floats uniform in [-2, 2), integers in [-3, 3] (unsigned
/// [0, 6]), bools random. Deterministic for a seed.
Tensor randomTensor(const Type &ty, unsigned seed);

struct RunOptions {
  /// Graph passes; empty for the default pipeline. {"dce"} keeps nodes constant folding would
  /// otherwise evaluate on the Interpreter at compile time.
  std::vector<std::string> pipeline;
  /// Inputs by placeholder name; other inputs get randomTensor values.
  std::map<std::string, Tensor> inputs;
  /// Options for the CPU backend (threads, target features: what CPUBackendTest varies); the
  /// other backends under test run with their defaults, against the same reference.
  BackendOptions backend;
};

/// Only the dce pass: constant folding would otherwise run the nodes under test on the
/// Interpreter at compile time.
RunOptions dceOnly();

/// A tensor of kind \p k with \p values, repeated to fill it (converted as
/// Tensor::setElementFromDouble does).
Tensor tensorOf(ElemKind k, std::vector<dim_t> dims, const std::vector<double> &values);

/// Builds, compiles for \p backend, feeds the inputs and runs; the outputs or the error.
Outputs runOn(const std::string &backend, const GraphBuilder &build,
              const RunOptions &opts = RunOptions());

/// A copy of \p o (its input tensors cloned).
RunOptions copyOf(const RunOptions &o);

/// The CPU backend on two threads gives its one-thread outputs bit for bit (a split changes no
/// element's order of summation), and the Interpreter's within \p atol and \p rtol. \p opts
/// gives the inputs and passes; the thread counts are set here.
void expectSplitMatchesOneThread(const GraphBuilder &build, const RunOptions &opts, double atol,
                                 double rtol);

/// Every registered backend but the Interpreter.
std::vector<std::string> backendsUnderTest();

/// Each backend under test gives the Interpreter's outputs: same types, floats within
/// |got - want| <= atol + rtol * |want|, other kinds exactly.
void expectBackendsAgree(const GraphBuilder &build, const RunOptions &opts = RunOptions(),
                         double atol = 1e-5, double rtol = 1e-4);

// Graph-building shorthands.
Placeholder *input(Module &M, std::vector<dim_t> dims, ElemKind k = ElemKind::Float32,
                   const std::string &name = "x");
Constant *constant(Module &M, std::vector<dim_t> dims, unsigned seed,
                   ElemKind k = ElemKind::Float32);
/// A convolution's window attributes.
AttrList convAttrs(std::vector<int64_t> kernels, std::vector<int64_t> strides,
                   std::vector<int64_t> pads, std::vector<int64_t> dilations, int64_t group);
/// A MaxPool's attributes (storage order 0).
AttrList maxPoolAttrs(std::vector<int64_t> kernels, std::vector<int64_t> strides,
                      std::vector<int64_t> pads, std::vector<int64_t> dilations, int64_t ceil);
/// An AvgPool's attributes (dilations 1).
AttrList avgPoolAttrs(std::vector<int64_t> kernels, std::vector<int64_t> strides,
                      std::vector<int64_t> pads, int64_t ceil, int64_t countIncludePad);
/// Creates a node (failing the test on error; returns null then).
Node *node(Function *F, NodeKind k, std::vector<NodeValue> ops, AttrList attrs = {});

} // namespace test
} // namespace ember

#endif
