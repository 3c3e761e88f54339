// The Python module's native part, ember._ember: a compiled model's metadata, runs with the GIL
// released, bundles, dumps and profiles, over the library code the tools run
// (FlagCompile.h). python/ember/__init__.py is the API users call; docs/python.md.
#include "FlagCompile.h"

#include "ToolReports.h"

#include "ember/Base/Npy.h"
#include "ember/Support/Error.h"

#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>

namespace py = pybind11;
using namespace ember;
using namespace ember::python;

namespace {

/// ember.Error: what the library reported, as the tools print it (less their "error: ").
struct EmberError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(llvm::Error err) {
  if (err)
    throw EmberError(errorToString(std::move(err)));
}

template <typename T> T check(llvm::Expected<T> value) {
  if (!value)
    throw EmberError(errorToString(value.takeError()));
  return std::move(*value);
}

/// numpy's dtype of \p ty's elements; none for the kinds numpy has no dtype for (bfloat16).
py::object dtypeOf(const Type &ty) {
  const char *descr = npyDescr(ty.kind);
  return descr ? py::object(py::dtype(descr)) : py::object(py::none());
}

/// (name, shape, numpy dtype or None, ember's type) for each placeholder.
py::list describe(const std::vector<const Placeholder *> &placeholders) {
  py::list out;
  for (const Placeholder *p : placeholders) {
    const Type &ty = p->getType();
    py::tuple shape(ty.dims.size());
    for (size_t i = 0; i < ty.dims.size(); ++i)
      shape[i] = py::int_(ty.dims[i]);
    out.append(py::make_tuple(p->getName().str(), shape, dtypeOf(ty), ty.str()));
  }
  return out;
}

class Model;

/// One run's memory (an ExecutionContext of its own): the output arrays of that run are views
/// of it, so it lives as long as any of them (their numpy base). Its buffer is the whole
/// mutable region, where the run read its inputs and wrote its outputs.
struct RunMemory {
  std::shared_ptr<Model> model; ///< the compiled code the context belongs to
  std::unique_ptr<ExecutionContext> context;
  /// When the compiled code started and finished, in seconds on time.monotonic()'s clock
  /// (CLOCK_MONOTONIC, steady_clock's): the run alone, without Python's share of run().
  double started = 0, finished = 0;
};

double monotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class Model : public std::enable_shared_from_this<Model> {
  std::string path_;
  FlagList flags_;
  FlagCompiled compiled_;
  std::mutex profileMutex_; ///< a profile is one set of counters: profiled runs take turns
  std::unique_ptr<CompiledModel> profiled_;

  const Placeholder *find(const std::vector<Placeholder *> &ps, llvm::StringRef name) const {
    for (const Placeholder *p : ps)
      if (p->getName() == name)
        return p;
    return nullptr;
  }

  const Placeholder *output(llvm::StringRef name) const {
    const Placeholder *p = find(compiled_.model->getOutputs(), name);
    if (!p)
      throw EmberError("the model has no output placeholder '" + name.str() + "'");
    return p;
  }

  /// \p inputs, each made a C-ordered array (copied only if it is not one already), with the
  /// ember type its dtype and shape make.
  std::vector<std::tuple<std::string, py::array, Type>> arraysOf(const py::dict &inputs) {
    std::vector<std::tuple<std::string, py::array, Type>> arrays;
    std::vector<Placeholder *> modelInputs = compiled_.model->getInputs();
    for (auto [key, value] : inputs) {
      std::string name = py::cast<std::string>(key);
      const Placeholder *p = find(modelInputs, name);
      if (!p) {
        std::string names;
        for (const Placeholder *q : modelInputs)
          names += (names.empty() ? "" : ", ") + q->getName().str();
        throw EmberError("the model has no input named '" + name + "' (its inputs: " + names +
                         ")");
      }
      auto array = py::array::ensure(value, py::array::c_style);
      if (!array)
        throw EmberError("input '" + name + "': not an array");
      std::string descr = py::str(array.dtype().attr("str"));
      ElemKind kind;
      if (!npyDescrKind(descr, kind))
        throw EmberError("input '" + name + "': numpy dtype '" +
                         std::string(py::str(array.dtype())) +
                         "' has no ember element kind; the model expects " +
                         p->getType().str());
      std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
      Type ty = check(Type::checked(kind, dims));
      arrays.emplace_back(std::move(name), std::move(array), std::move(ty));
    }
    std::string missing;
    for (const Placeholder *p : modelInputs)
      if (!inputs.contains(p->getName().str()))
        missing += (missing.empty() ? "'" : ", '") + p->getName().str() + "' " +
                   p->getType().str();
    if (!missing.empty())
      throw EmberError("no data for model input(s) " + missing);
    return arrays;
  }

public:
  Model(std::string path, FlagList flags)
      : path_(std::move(path)), flags_(std::move(flags)) {
    py::gil_scoped_release unlocked;
    compiled_ = check(compileWithFlags(path_, flags_, /*profile=*/false));
  }

  py::list inputs() const {
    std::vector<Placeholder *> ps = compiled_.model->getInputs();
    return describe({ps.begin(), ps.end()});
  }
  py::list outputs() const {
    std::vector<const Placeholder *> ps;
    for (const std::string &name : compiled_.outputNames)
      ps.push_back(output(name));
    return describe(ps);
  }

  /// Runs on \p inputs in a context of this run's own, the GIL released: several Python
  /// threads run one model at once. Inputs are copied once, from the arrays' memory into the
  /// context; outputs are not copied: each is a view of the context (RunMemory).
  py::dict run(const py::dict &inputs) {
    auto arrays = arraysOf(inputs);
    auto memory = std::make_unique<RunMemory>();
    memory->model = shared_from_this();
    {
      py::gil_scoped_release unlocked;
      memory->context = check(compiled_.model->createContext());
      for (auto &[name, array, ty] : arrays)
        check(memory->context->setInput(name, ty, array.data()));
      memory->started = monotonicSeconds();
      check(memory->context->run());
      memory->finished = monotonicSeconds();
    }
    std::vector<std::pair<std::string, uint8_t *>> data;
    for (const std::string &name : compiled_.outputNames)
      data.emplace_back(name, check(memory->context->placeholderData(name)));
    py::object owner = py::cast(std::move(memory));
    py::dict out;
    for (auto &[name, ptr] : data) {
      const Type &ty = output(name)->getType();
      py::object dtype = dtypeOf(ty);
      if (dtype.is_none())
        throw EmberError("output '" + name + "' is " + ty.str() + ", which numpy cannot hold");
      std::vector<py::ssize_t> shape(ty.dims.begin(), ty.dims.end());
      out[py::str(name)] = py::array(py::reinterpret_borrow<py::dtype>(dtype), shape, ptr, owner);
    }
    return out;
  }

  /// Each computing instruction's time per run over \p iterations runs on \p inputs, slowest
  /// first, on a copy of the model compiled with -profile (the first call compiles it).
  py::list profile(const py::dict &inputs, unsigned iterations) {
    if (iterations == 0)
      throw EmberError("profile: iterations must be at least 1");
    auto arrays = arraysOf(inputs);
    std::vector<InstructionTime> before, after;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> lock(profileMutex_);
      if (!profiled_)
        profiled_ = check(compileWithFlags(path_, flags_, /*profile=*/true)).model;
      auto context = check(profiled_->createContext());
      for (auto &[name, array, ty] : arrays)
        check(context->setInput(name, ty, array.data()));
      before = profiled_->getProfile();
      for (unsigned i = 0; i < iterations; ++i)
        check(context->run());
      after = profiled_->getProfile();
    }
    std::vector<std::pair<double, const Instruction *>> rows;
    double total = 0;
    for (size_t i = 0; i < after.size(); ++i) {
      double millis = (after[i].millis - (i < before.size() ? before[i].millis : 0)) / iterations;
      rows.emplace_back(millis, after[i].instr);
      total += millis;
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto &a, const auto &b) { return a.first > b.first; });
    py::list out;
    for (const auto &[millis, I] : rows) {
      py::dict row;
      row["name"] = I->getName().str();
      row["kind"] = I->getKindName().str();
      row["ms"] = millis;
      row["share"] = total > 0 ? millis / total : 0.0;
      row["gflops"] = tools::productGflops(*I, millis);
      row["type"] = I->getNumOperands() ? I->getOperand(0)->getType().str() : std::string();
      out.append(row);
    }
    return out;
  }

  std::string dumpGraph() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    tools::printGraph(compiled_.model->getFunction(), os);
    return os.str();
  }
  std::string dumpIR() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    compiled_.model->getIR().dump(os);
    return os.str();
  }
};

} // namespace

PYBIND11_MODULE(_ember, m) {
  m.doc() = "ember's native part; use the ember package (docs/python.md)";
  py::register_exception<EmberError>(m, "Error");

  py::class_<RunMemory, std::unique_ptr<RunMemory>>(m, "RunMemory", py::buffer_protocol(),
                                                     "One run's memory, its outputs' base")
      .def_buffer([](RunMemory &r) -> py::buffer_info {
        auto region = r.context->mutableRegion();
        return py::buffer_info(region.data(), 1, py::format_descriptor<uint8_t>::format(),
                               py::ssize_t(region.size()));
      })
      .def_readonly("started", &RunMemory::started)
      .def_readonly("finished", &RunMemory::finished);

  py::class_<Model, std::shared_ptr<Model>>(m, "Model")
      .def(py::init<std::string, FlagList>(), py::arg("path"), py::arg("flags"))
      .def_property_readonly("inputs", &Model::inputs)
      .def_property_readonly("outputs", &Model::outputs)
      .def("run", &Model::run, py::arg("inputs"))
      .def("profile", &Model::profile, py::arg("inputs"), py::arg("iterations"))
      .def("dump_graph", &Model::dumpGraph)
      .def("dump_ir", &Model::dumpIR);

  m.def(
      "emit_bundle",
      [](const std::string &path, const FlagList &flags, const std::string &dir,
         const std::string &networkName) {
        py::gil_scoped_release unlocked;
        return check(emitBundleWithFlags(path, flags, dir, networkName));
      },
      py::arg("path"), py::arg("flags"), py::arg("dir"), py::arg("network_name"));
}
