#include "BackendTestUtils.h"

#include "ModelTestCase.h"

#include "ember/Backends/Backend.h"

#include <random>

namespace ember {
namespace test {

Tensor randomTensor(const Type &ty, unsigned seed) {
  Tensor t(ty);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  bool isUnsigned = ty.kind == ElemKind::UInt8 || ty.kind == ElemKind::UInt16 ||
                    ty.kind == ElemKind::UInt32 || ty.kind == ElemKind::UInt64;
  for (size_t i = 0; i < t.numElements(); ++i) {
    double v;
    if (isFloatKind(ty.kind))
      v = dist(gen);
    else if (ty.kind == ElemKind::Bool)
      v = double(gen() % 2);
    else
      v = double(gen() % 7) - (isUnsigned ? 0 : 3);
    t.setElementFromDouble(i, v);
  }
  return t;
}

RunOptions dceOnly() {
  RunOptions o;
  o.pipeline = {"dce"};
  return o;
}

Tensor tensorOf(ElemKind k, std::vector<dim_t> dims, const std::vector<double> &values) {
  Tensor t(Type(k, dims));
  for (size_t i = 0; i < t.numElements() && !values.empty(); ++i)
    t.setElementFromDouble(i, values[i % values.size()]);
  return t;
}

Outputs runOn(const std::string &backend, const GraphBuilder &build, const RunOptions &ro) {
  Outputs o;
  auto M = std::make_unique<Module>();
  Function *F = M->createFunction(kMainFunctionName);
  std::vector<NodeValue> results = build(*M, F);
  std::vector<std::pair<std::string, Type>> inputs;
  for (const auto &p : M->getPlaceholders())
    inputs.push_back({p->getName().str(), p->getType()});
  std::vector<std::string> outNames;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].node) {
      o.error = "the graph builder failed";
      return o;
    }
    std::string name = "out" + std::to_string(i);
    Placeholder *p = M->createPlaceholder(results[i].getType(), name);
    if (auto e = F->createNode(NodeKind::Save, "save" + std::to_string(i), {results[i], p});
        !e) {
      o.error = errorToString(e.takeError());
      return o;
    }
    outNames.push_back(name);
  }
  CompileOptions opts;
  opts.backend = backend;
  opts.pipeline = ro.pipeline;
  if (backend == "CPU") // its code generation options; the others run with their defaults
    opts.backendOptions = ro.backend;
  auto cm = CompiledModel::compile(std::move(M), opts);
  if (!cm) {
    o.error = errorToString(cm.takeError());
    return o;
  }
  unsigned seed = 1;
  for (auto &in : inputs) {
    auto given = ro.inputs.find(in.first);
    Tensor t = given != ro.inputs.end() ? given->second.clone() : randomTensor(in.second, seed);
    ++seed;
    if (auto e = (*cm)->setInput(in.first, t)) {
      o.error = errorToString(std::move(e));
      return o;
    }
  }
  if (auto e = (*cm)->run()) {
    o.error = errorToString(std::move(e));
    return o;
  }
  for (const std::string &name : outNames) {
    auto t = (*cm)->getOutput(name);
    if (!t) {
      o.error = errorToString(t.takeError());
      return o;
    }
    o.tensors.push_back(std::move(*t));
  }
  return o;
}

std::vector<std::string> backendsUnderTest() {
  std::vector<std::string> names;
  for (const std::string &n : getBackendNames())
    if (n != "Interpreter")
      names.push_back(n);
  return names;
}

RunOptions copyOf(const RunOptions &o) {
  RunOptions c;
  c.pipeline = o.pipeline;
  c.backend = o.backend;
  for (const auto &[name, t] : o.inputs)
    c.inputs.emplace(name, t.clone());
  return c;
}

void expectSplitMatchesOneThread(const GraphBuilder &build, const RunOptions &opts, double atol,
                                 double rtol) {
  RunOptions one = copyOf(opts), two = copyOf(opts);
  one.backend.threads = 1;
  two.backend.threads = 2;
  Outputs serial = runOn("CPU", build, one), split = runOn("CPU", build, two);
  ASSERT_EQ(serial.error, "");
  ASSERT_EQ(split.error, "");
  ASSERT_EQ(split.tensors.size(), serial.tensors.size());
  for (size_t i = 0; i < split.tensors.size(); ++i)
    EXPECT_TRUE(split.tensors[i].bitwiseEqual(serial.tensors[i])) << "output " << i;
  expectBackendsAgree(build, two, atol, rtol);
}

void expectBackendsAgree(const GraphBuilder &build, const RunOptions &opts, double atol,
                         double rtol) {
  Outputs want = runOn("Interpreter", build, opts);
  ASSERT_EQ(want.error, "");
  for (const std::string &backend : backendsUnderTest()) {
    SCOPED_TRACE(backend);
    Outputs got = runOn(backend, build, opts);
    ASSERT_EQ(got.error, "");
    ASSERT_EQ(got.tensors.size(), want.tensors.size());
    for (size_t i = 0; i < got.tensors.size(); ++i) {
      ASSERT_EQ(got.tensors[i].getType(), want.tensors[i].getType()) << "output " << i;
      EXPECT_EQ(tools::compareTensors(got.tensors[i], want.tensors[i], {atol, rtol}), "")
          << "output " << i;
    }
  }
}

Placeholder *input(Module &M, std::vector<dim_t> dims, ElemKind k, const std::string &name) {
  return M.createPlaceholder(Type(k, dims), name);
}

Constant *constant(Module &M, std::vector<dim_t> dims, unsigned seed, ElemKind k) {
  return M.createConstant(randomTensor(Type(k, dims), seed), "c");
}

AttrList convAttrs(std::vector<int64_t> kernels, std::vector<int64_t> strides,
                   std::vector<int64_t> pads, std::vector<int64_t> dilations, int64_t group) {
  AttrList a;
  a.set<AttrKind::Kernels>(kernels)
      .set<AttrKind::Strides>(strides)
      .set<AttrKind::Pads>(pads)
      .set<AttrKind::Dilations>(dilations)
      .set<AttrKind::Group>(group);
  return a;
}

AttrList maxPoolAttrs(std::vector<int64_t> kernels, std::vector<int64_t> strides,
                      std::vector<int64_t> pads, std::vector<int64_t> dilations, int64_t ceil) {
  AttrList a;
  a.set<AttrKind::Kernels>(kernels)
      .set<AttrKind::Strides>(strides)
      .set<AttrKind::Pads>(pads)
      .set<AttrKind::Dilations>(dilations)
      .set<AttrKind::CeilMode>(ceil)
      .set<AttrKind::StorageOrder>(int64_t(0));
  return a;
}

AttrList avgPoolAttrs(std::vector<int64_t> kernels, std::vector<int64_t> strides,
                      std::vector<int64_t> pads, int64_t ceil, int64_t countIncludePad) {
  AttrList a;
  a.set<AttrKind::Kernels>(kernels)
      .set<AttrKind::Strides>(strides)
      .set<AttrKind::Pads>(pads)
      .set<AttrKind::Dilations>({1, 1})
      .set<AttrKind::CeilMode>(ceil)
      .set<AttrKind::CountIncludePad>(countIncludePad);
  return a;
}

Node *node(Function *F, NodeKind k, std::vector<NodeValue> ops, AttrList attrs) {
  auto n = F->createNode(k, "n", ops, std::move(attrs));
  EXPECT_TRUE(bool(n)) << errorToString(n.takeError());
  return n ? *n : nullptr;
}

} // namespace test
} // namespace ember
