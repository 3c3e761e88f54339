// model-runner: compile a model for a backend and run it once on input files.
#include "CommandLine.h"
#include "CompileFromFlags.h"
#include "ModelLoading.h"
#include "ToolFlags.h"
#include "ToolReports.h"
#include "TraceEvents.h"

#include "ember/Base/Npy.h"
#include "ember/Importer/TensorFiles.h"
#include "ember/Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>

using namespace ember;
using namespace llvm;

DEFINE_string(output_dir, "", "Write every output to DIR/<name>.npy (or .pb: -output-format)");
DEFINE_string(output_format, "npy",
              "The files -output-dir writes: npy (NumPy; cannot hold bfloat16; a sequence "
              "output is one file per element, <name>_0.npy...) or pb (ONNX TensorProto, "
              "SequenceProto or OptionalProto named after the output; every element kind, bit "
              "for bit)");
DEFINE_string(list_operators, "",
              "caffe2: print the Caffe2 operator types the loader knows, one per line, and exit; "
              "onnx: the ONNX operators, one per line with the versions (first opsets) read");
DEFINE_int32(iterations, 0,
             "Also run the compiled function N more times and print the median and minimum "
             "latency of one run (the compiled function alone: no copying of inputs or outputs)");
DEFINE_string(trace, "",
              "Write a Chrome Trace Event file (chrome://tracing, ui.perfetto.dev): the compile "
              "phases, then the run and each of -iterations with one event per instruction "
              "(its kind, outputs and, for products, GFLOP/s) and, on the CPU, one per "
              "thread's part of a threaded step, on that thread");

DEFINE_int32(topk, 0,
             "Print the K best classes of each batch item of the model's first output (its "
             "dim 0 the items), with their scores");
DEFINE_string(labels, "",
              "With -topk: a text file of the class labels, one per line (line 1: class 0), "
              "printed beside each class");

DEFINE_string(dump_profile, "",
              "Record the range and histogram of every float value over the runs (the -input "
              "run, then one per entry of -profile-inputs) and write them to this YAML file, "
              "for -load-profile");
DEFINE_string(profile_inputs, "",
              "With -dump-profile: a directory of more inputs to profile, one run per entry in "
              "name order: a tensor file (.npy or .pb) for a model with one input, or a "
              "directory holding NAME.npy (or NAME.pb) for each input");

namespace {

/// -labels: the file's lines (a last empty line dropped), one per class of \p classes.
Expected<std::vector<std::string>> readLabels(size_t classes, StringRef output) {
  std::vector<std::string> labels;
  if (FLAGS_labels.empty())
    return std::move(labels);
  auto buffer = MemoryBuffer::getFile(FLAGS_labels, /*IsText=*/true);
  if (!buffer)
    return makeError(FLAGS_labels + ": " + buffer.getError().message());
  SmallVector<StringRef, 16> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  if (!lines.empty() && lines.back().empty())
    lines.pop_back();
  for (StringRef line : lines)
    labels.push_back(line.rtrim("\r").str());
  if (labels.size() != classes)
    return makeError(FLAGS_labels + ": " + Twine(labels.size()) + " labels, but output '" +
                     output + "' has " + Twine(classes) + " classes");
  return std::move(labels);
}

/// -topk: the best classes of the first output, each batch item named after its image when
/// the model's first image input has one image per item.
Error printTopClasses(CompiledModel &cm, const std::vector<GraphValue> &outputs,
                      const std::vector<tools::InputFile> &inputs) {
  if (outputs.empty() || !outputs[0].isTensor())
    return makeError("-topk: the first output is not a tensor");
  EMBER_ASSIGN_OR_RETURN(Tensor scores, cm.getOutput(outputs[0].name));
  size_t classes = tools::topKItemsAndClasses(scores).second;
  EMBER_ASSIGN_OR_RETURN(std::vector<std::string> labels, readLabels(classes, outputs[0].name));
  std::vector<std::string> itemNames;
  for (const tools::InputFile &f : inputs)
    if (!f.images.empty() && itemNames.empty())
      itemNames = f.images;
  tools::printTopK(outputs[0].name, scores, size_t(FLAGS_topk), labels, itemNames);
  return Error::success();
}

/// \p name with every character outside [A-Za-z0-9_.-] replaced by '_': an output's or
/// an input's name as a file name.
std::string legalizeFileName(StringRef name) {
  std::string out = name.str();
  for (char &c : out)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
      c = '_';
  if (out.empty() || out == "." || out == "..")
    out = "_" + out;
  return out;
}

/// Shape, range and first values; the index of the largest value for a vector of scores.
void printOutput(StringRef name, const Tensor &t) {
  size_t n = t.numElements();
  outs() << "output '" << name << "' " << t.getType().str();
  if (n) {
    double lo = t.elementAsDouble(0), hi = lo;
    size_t argmax = 0;
    for (size_t i = 1; i < n; ++i) {
      double v = t.elementAsDouble(i);
      lo = std::min(lo, v);
      if (v > hi) {
        hi = v;
        argmax = i;
      }
    }
    outs() << " min " << format("%.7g", lo) << " max " << format("%.7g", hi);
    size_t nonUnit = std::count_if(t.getType().dims.begin(), t.getType().dims.end(),
                                   [](dim_t d) { return d != 1; });
    if (nonUnit == 1)
      outs() << " argmax " << argmax;
  }
  outs() << "\n  ";
  t.print(outs(), 10);
  outs() << "\n";
}

/// Prints graph output \p out and writes it under -output-dir: one .pb of its kind (a
/// TensorProto, SequenceProto or OptionalProto), or .npy files, one per tensor (a sequence's
/// element i in <name>_i.npy; an empty optional writes none).
Error writeOutput(CompiledModel &cm, const GraphValue &out) {
  std::vector<std::string> names = out.placeholderNames();
  std::vector<Tensor> tensors;
  if (!out.isTensor())
    outs() << "output '" << out.name << "' is " << out.describe() << "\n";
  for (size_t i = 0; i < out.types.size(); ++i) {
    EMBER_ASSIGN_OR_RETURN(Tensor t, cm.getOutput(names[i]));
    printOutput(names[i], t);
    tensors.push_back(std::move(t));
  }
  if (FLAGS_output_dir.empty())
    return Error::success();
  std::string stem = legalizeFileName(out.name);
  auto pathOf = [&](const std::string &fileName) {
    SmallString<256> path(FLAGS_output_dir);
    sys::path::append(path, fileName);
    return std::string(path);
  };
  if (FLAGS_output_format == "pb")
    return writeValueFile(pathOf(stem + ".pb"), out, tensors);
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_TRY(writeNpyFile(pathOf(out.sequence ? stem + "_" + std::to_string(i) + ".npy"
                                               : stem + ".npy"),
                           tensors[i]));
  if (out.optional && !out.present)
    errs() << "note: output '" << out.name << "' is an empty optional: no .npy file is written\n";
  return Error::success();
}

/// The runs of -profile-inputs: each entry of the directory, in name order, as the values of
/// the model's inputs.
Expected<std::vector<std::vector<std::pair<std::string, Tensor>>>>
readProfileInputs(const std::vector<Placeholder *> &modelInputs) {
  std::vector<std::vector<std::pair<std::string, Tensor>>> runs;
  if (FLAGS_profile_inputs.empty())
    return std::move(runs);
  std::error_code ec;
  std::vector<std::string> entries;
  for (sys::fs::directory_iterator it(FLAGS_profile_inputs, ec), end; it != end && !ec;
       it.increment(ec))
    entries.push_back(it->path());
  if (ec)
    return makeError("-profile-inputs=" + FLAGS_profile_inputs + ": " + ec.message());
  std::sort(entries.begin(), entries.end());
  for (const std::string &entry : entries) {
    std::vector<std::pair<std::string, Tensor>> run;
    if (!sys::fs::is_directory(entry)) {
      if (modelInputs.size() != 1)
        return makeError("-profile-inputs: " + entry + " is a file, but the model has " +
                         Twine(modelInputs.size()) +
                         " inputs; give each run as a directory of NAME.npy files");
      EMBER_ASSIGN_OR_RETURN(Tensor t, readTensorFile(entry));
      run.push_back({modelInputs[0]->getName().str(), std::move(t)});
    } else {
      for (Placeholder *p : modelInputs) {
        std::string found;
        for (StringRef ext : {".npy", ".pb"}) {
          SmallString<256> path(entry);
          sys::path::append(path, legalizeFileName(p->getName()) + ext.str());
          if (found.empty() && sys::fs::exists(path))
            found = std::string(path);
        }
        if (found.empty())
          return makeError("-profile-inputs: " + entry + " has no " +
                           legalizeFileName(p->getName()) + ".npy for input '" +
                           p->getName() + "'");
        EMBER_ASSIGN_OR_RETURN(Tensor t, readTensorFile(found));
        run.push_back({p->getName().str(), std::move(t)});
      }
    }
    runs.push_back(std::move(run));
  }
  if (runs.empty())
    return makeError("-profile-inputs=" + FLAGS_profile_inputs + " holds no inputs");
  return std::move(runs);
}

/// Adds every profiled value of the last run to \p profile.
Error recordProfile(CompiledModel &cm, Profile &profile) {
  for (const ProfiledValue &v : cm.getSummary().profiledValues) {
    EMBER_ASSIGN_OR_RETURN(Tensor t, cm.getOutput(v.placeholder));
    profile.record(v.key, t);
  }
  return Error::success();
}

/// -dump-profile: the run already made, then one per -profile-inputs entry, into the file.
Error writeProfileOfRuns(CompiledModel &cm) {
  Profile profile;
  EMBER_TRY(recordProfile(cm, profile));
  EMBER_ASSIGN_OR_RETURN(auto runs, readProfileInputs(cm.getInputs()));
  for (auto &run : runs) {
    for (auto &[name, t] : run)
      EMBER_TRY(cm.setInput(name, t));
    EMBER_TRY(cm.run());
    EMBER_TRY(recordProfile(cm, profile));
  }
  EMBER_TRY(writeProfile(profile, FLAGS_dump_profile));
  outs() << "profile: " << profile.entries().size() << " values over " << runs.size() + 1
         << " runs written to " << FLAGS_dump_profile << "\n";
  return Error::success();
}

Error runMain() {
  EMBER_ASSIGN_OR_RETURN(std::vector<tools::InputFile> inputs, tools::readInputFiles());
  if (FLAGS_output_format != "npy" && FLAGS_output_format != "pb")
    return makeError("-output-format must be npy or pb, not '" + FLAGS_output_format + "'");
  std::vector<tools::BoundInput> bound;
  std::vector<GraphValue> outputs;
  if (!FLAGS_profile_inputs.empty() && FLAGS_dump_profile.empty())
    return makeError("-profile-inputs needs -dump-profile");
  if (FLAGS_topk < 0)
    return makeError("-topk must not be negative");
  if (!FLAGS_labels.empty() && FLAGS_topk == 0)
    return makeError("-labels needs -topk=K");
  std::unique_ptr<tools::TraceEvents> trace;
  if (!FLAGS_trace.empty()) { // opened first: a path that cannot be written fails early
    EMBER_ASSIGN_OR_RETURN(trace, tools::TraceEvents::create(FLAGS_trace,
                                                             "model-runner " + FLAGS_model));
  }
  // -trace's time 0: the import starts just after.
  const auto origin = std::chrono::steady_clock::now();
  double importMillis = 0;
  EMBER_ASSIGN_OR_RETURN(auto cm, tools::loadAndCompile(inputs, bound, outputs,
                                                        !FLAGS_dump_profile.empty(),
                                                        bool(trace), &importMillis));
  if (trace)
    trace->addPhases(importMillis, cm->getSummary().phaseMillis);
  std::vector<Placeholder *> modelInputs = cm->getInputs();
  bool dumpOnly = inputs.empty() && !modelInputs.empty() &&
                  (FLAGS_dump_graph || FLAGS_dump_ir || !FLAGS_dump_graph_DAG.empty());
  if (dumpOnly) // -trace: the compile alone
    return trace ? trace->write() : Error::success();
  std::vector<tools::GivenInput> given = tools::givenTensors(inputs);
  if (inputs.size() == 1 && inputs[0].name.empty() && bound.empty() && modelInputs.size() != 1)
    return makeError("-input=" + inputs[0].path + " names no input, but the model has " +
                     Twine(modelInputs.size()) + " inputs; use -input=NAME=FILE");
  EMBER_TRY(tools::setRunTimeInputs(*cm, given, bound));
  std::string missing;
  for (Placeholder *p : modelInputs) {
    bool isGiven = std::any_of(given.begin(), given.end(), [&](const tools::GivenInput &g) {
      return g.name == p->getName() || (g.name.empty() && modelInputs.size() == 1);
    });
    if (!isGiven)
      missing += (missing.empty() ? "'" : ", '") + p->getName().str() + "' " +
                 p->getType().str();
  }
  if (!missing.empty())
    return makeError("no data for model input(s) " + missing + " (use -input=NAME=FILE)");
  if (!FLAGS_output_dir.empty()) {
    // Refused before running: .npy has no bfloat16 dtype (numpy has none).
    for (Placeholder *p : cm->getOutputs())
      if (FLAGS_output_format == "npy" && p->getType().kind == ElemKind::BFloat16)
        return makeError("output '" + p->getName() + "' is " + p->getType().str() +
                         ", which .npy cannot hold; write it with -output-format=pb");
    if (std::error_code ec = sys::fs::create_directories(FLAGS_output_dir))
      return makeError(FLAGS_output_dir + ": " + ec.message());
    if (!sys::fs::is_directory(FLAGS_output_dir))
      return makeError(FLAGS_output_dir + ": exists and is not a directory");
  }
  // One run of the compiled function: its time in ms, and with -trace, its events (the spans
  // it recorded, or the profile's totals before and after it; read outside the time measured).
  unsigned runIndex = 0;
  auto timedRun = [&]() -> Expected<double> {
    std::vector<InstructionTime> before;
    if (trace)
      before = cm->getProfile();
    auto start = std::chrono::steady_clock::now();
    EMBER_TRY(cm->run());
    auto end = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(end - start).count();
    if (trace) {
      uint64_t dropped = 0;
      std::vector<TraceSpan> spans = cm->takeTrace(dropped);
      if (dropped)
        errs() << "warning: -trace: " << dropped << " events of run " << runIndex
               << " did not fit the buffer and are not in the trace\n";
      uint64_t originNanos = uint64_t(
          std::chrono::duration_cast<std::chrono::nanoseconds>(origin.time_since_epoch())
              .count());
      trace->addRun(runIndex, std::chrono::duration<double, std::micro>(start - origin).count(),
                    ms * 1000, before, cm->getProfile(), spans, originNanos);
    }
    ++runIndex;
    return ms;
  };
  if (FLAGS_iterations < 0)
    return makeError("-iterations must not be negative");
  EMBER_TRY(timedRun().takeError());
  if (FLAGS_iterations > 0) {
    std::vector<double> ms;
    for (int i = 0; i < FLAGS_iterations; ++i) {
      EMBER_ASSIGN_OR_RETURN(double runMs, timedRun());
      ms.push_back(runMs);
    }
    std::sort(ms.begin(), ms.end());
    double median = ms.size() % 2 ? ms[ms.size() / 2]
                                  : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
    outs() << format("latency: median %.3f ms, min %.3f ms over %d runs (%s)\n", median, ms[0],
                     FLAGS_iterations, FLAGS_backend.c_str());
  }
  if (FLAGS_profile)
    tools::printProfile(*cm, unsigned(FLAGS_iterations) + 1);
  if (trace)
    EMBER_TRY(trace->write());
  if (!FLAGS_dump_profile.empty()) {
    // The outputs printed below are then those of the last profiled run.
    EMBER_TRY(writeProfileOfRuns(*cm));
  }
  std::vector<GraphValue> graphOutputs = tools::graphOutputsOf(*cm, std::move(outputs));
  for (const GraphValue &out : graphOutputs)
    EMBER_TRY(writeOutput(*cm, out));
  if (FLAGS_topk > 0)
    EMBER_TRY(printTopClasses(*cm, graphOutputs, inputs));
  return Error::success();
}

} // namespace

int main(int argc, char **argv) {
  tools::parseCommandLine(argc, argv,
                          "model-runner: compile a model and run it once.\n"
                          "  model-runner -model=m.onnx -input=x=in.npy -output-dir=out/\n"
                          "  model-runner -model=predict_net.pb -model=init_net.pb "
                          "-model-input=data,float,[1,3,224,224]\n"
                          "  model-runner -model=m.onnx -input=image=cat.png -topk=5 "
                          "-labels=labels.txt\n"
                          "  model-runner -model=m.onnx -dump-graph -dump-ir");
  if (argc > 1) {
    errs() << "error: unexpected argument '" << argv[1] << "'\n";
    return 1;
  }
  if (!FLAGS_list_operators.empty()) {
    if (FLAGS_list_operators != "caffe2" && FLAGS_list_operators != "onnx")
      return tools::reportError(makeError("-list-operators: 'caffe2' or 'onnx', not '" +
                                          FLAGS_list_operators + "'"));
    for (const std::string &line : FLAGS_list_operators == "onnx" ? onnxOperatorVersions()
                                                                   : caffe2OperatorNames())
      outs() << line << "\n";
    return 0;
  }
  try {
    if (Error err = runMain())
      return tools::reportError(std::move(err));
  } catch (const std::bad_alloc &) {
    return tools::reportError(makeError("out of memory"));
  }
  return 0;
}
