#include "ToolSupport.h"
#include "InputBinding.h"

#include "ember/Graph/ControlFlow.h"
#include "ember/Importer/TensorFiles.h"
#include "ember/Support/Error.h"
#include "ember/Support/MemoryBudget.h"
#include "ember/Support/PassManager.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>

using namespace llvm;

DEFINE_string(model, "",
              "Model: an ONNX file (.onnx binary, .onnxtxt text); or a Caffe2 model, given as "
              "-model=predict_net.pb -model=init_net.pb (predict first; .pbtxt for text) or as "
              "-model=DIR holding predict_net.pb(txt) and init_net.pb(txt)");
DEFINE_string(model_input, "",
              "NAME,TYPE,[D0,D1,...]: the type of a Caffe2 net's input (Caffe2 nets declare "
              "none; repeatable). TYPE is float, float16, bfloat16, int32, int64, bool, or "
              "int8q/uint8q followed by ,SCALE,OFFSET. Without it an input takes its -input "
              "file's type");
DEFINE_string(backend, "CPU",
              "Backend to compile for: CPU (LLVM, JIT-compiled for this machine), Interpreter "
              "(the reference) or OpenCL (the first OpenCL device; docs/opencl-backend.md)");
DEFINE_int32(opencl_platform, 0, "OpenCL: the platform to use, by index");
DEFINE_int32(opencl_device, 0, "OpenCL: the device of that platform to use, by index");
DEFINE_string(target, "", "Target triple to compile for, e.g. aarch64-linux-gnu (default: this "
                          "machine's; another machine's only for bundles)");
DEFINE_string(mcpu, "", "Target CPU, e.g. skylake-avx512, cortex-a72 (default: this machine's, "
                        "or generic for another -target)");
DEFINE_string(mattr, "", "Target features to add or remove, e.g. +avx2,-avx512f");
DEFINE_string(code_model, "", "Code model: small, medium, large, kernel (default: the target's)");
DEFINE_string(relocation_model, "", "Relocation model: pic or static (default: pic)");
DEFINE_int32(llvm_opt_level, 3,
             "CPU: how hard LLVM optimizes the generated code, 0 to 3 as clang's -O (the "
             "kernels are optimized bitcode at any level; 0 compiles fastest)");
DEFINE_bool(dump_llvm_ir, false, "Print the optimized LLVM IR of the compiled model (CPU)");
DEFINE_bool(dump_llvm_asm, false, "Print the generated assembly of the compiled model (CPU)");
DEFINE_int32(threads, 1,
             "Threads each convolution and matrix product splits its work over (CPU; the "
             "bundle then needs -pthread)");
DEFINE_bool(profile, false,
            "Time every instruction of the compiled function and print them, slowest first, "
            "with GFLOP/s for convolutions and matrix products");
DEFINE_double(peak_gflops, 0,
              "With -profile: this machine's peak GFLOP/s (utils/bench/peak.c), to print each "
              "product's share of it");
DEFINE_string(input, "",
              "Input tensors: NAME=FILE[,NAME=FILE...], or FILE for a model with one input. "
              "FILE is .npy or an ONNX TensorProto .pb of any element kind (a UINT16 .pb for a "
              "bfloat16 input holds its bits, as ONNX 1.12 writes bfloat16); a sequence or "
              "optional input is an ONNX SequenceProto or OptionalProto .pb, whose length "
              "(presence) is compiled in, its tensors run-time inputs. An input the "
              "model needs at compile time (a Reshape's shape, a Pad's pads) is fixed to its "
              "file's value when compiling (a note says so); the others stay run-time inputs");
DEFINE_string(onnx_define_symbol, "",
              "NAME,VALUE: bind a symbolic dim of the model's inputs (repeatable)");
DEFINE_string(onnx_define_input, "",
              "NAME=VALUE or NAME=FILE: bind a model input to a constant at compile time, so "
              "what depends on it alone folds away (repeatable; FILE is .npy or .pb)");
DEFINE_bool(strict_onnx, false,
            "Refuse an ONNX model on any finding of the ONNX checker. Without it the findings "
            "that leave the model unambiguous (an unnamed graph, an output without a type, an "
            "initializer missing from an IR-3 graph's inputs, ...) are warnings and the model "
            "loads");
DEFINE_int64(unroll_loops_up_to, ember::ImportOptions().unrollLoopsUpTo,
             "A Loop or Scan whose iteration count is known at compile time and at most this is "
             "unrolled; any other runs as a loop in the compiled code (0: never unroll one that "
             "can be a loop)");
DEFINE_int64(max_loop_iterations, ember::ImportOptions().maxLoopIterations,
             "A Loop whose trip count is known only at run time fails, at run time, rather than "
             "run more iterations than this");
DEFINE_string(max_memory, "",
              "The most memory one compile may ask for (a model's regions, a value folded at "
              "compile time), e.g. 512M or 8G; a model needing more is refused before "
              "allocating (default: half of this machine's memory)");
DEFINE_string(load_profile, "",
              "Quantize the model to int8 from this profile (written by model-runner "
              "-dump-profile): each Conv, MatMul and FullyConnected with constant weights whose "
              "input and result the profile covers runs as an integer kernel");
DEFINE_string(quantization_schema, "asymmetric",
              "With -load-profile, how a value's range becomes its scale and zero point: "
              "asymmetric (uint8), symmetric (int8, zero point 0), symmetric_with_uint8 (uint8 "
              "for ranges without negatives, else int8), symmetric_with_power2_scale");
DEFINE_string(quantization_calibration, "none",
              "With -load-profile, the range each activation is quantized over: none (the "
              "profiled min and max) or KL (clipped where the profile's histogram loses least "
              "in 8 bits; weights keep their exact range)");
DEFINE_string(quantization_precision, "Int8",
              "With -load-profile, the integer kind of quantized values: Int8 (Int16 is refused: "
              "the integer kernels take 8-bit operands only)");
DEFINE_string(quantization_precision_bias, "Int32",
              "With -load-profile, the integer kind of quantized biases: Int32 (Int8 is refused: "
              "the integer kernels add an int32 bias to their int32 sums)");
DEFINE_bool(enable_channelwise, ember::QuantizationOptions().channelwise,
            "With -load-profile: a weight scale per output channel (-enable-channelwise=false: "
            "one per tensor)");
DEFINE_string(keep_original_precision_for_nodes, "",
              "With -load-profile: node kinds (as -dump-graph names them, comma-separated: "
              "Conv,FusedConv,MatMul,FusedMatMul,FullyConnected) to leave in float32");
DEFINE_bool(dump_graph, false, "Print the optimized graph (alias -dumpGraph)");
DEFINE_string(dump_graph_DAG, "", "Write the optimized graph to this file as Graphviz DOT");
DEFINE_bool(dump_ir, false, "Print the IR with its memory plan");
DEFINE_string(dump_graph_after, "",
              "Print the graph after these graph passes (comma-separated names, or 'all')");
DEFINE_bool(print_pass_stats, false,
            "Print one line per graph and IR pass run: nodes (instructions) before and after, "
            "time");
DEFINE_bool(verify_each, false, "Verify the graph after every graph pass and the IR after "
                                "IRGen and every IR pass");
DEFINE_string(ir_passes, "default",
              "IR passes to run, comma-separated ('default' for the default IR pipeline, "
              "'none' for none)");
DEFINE_string(dump_ir_after, "",
              "Print the IR after these IR passes (comma-separated names, or 'all')");
DEFINE_bool(time_phases, false, "Print the time each compile phase took");
DEFINE_bool(print_memory, false,
            "Print the memory plan's summary: the three regions, and the activations' peak "
            "live bytes and sum against their region");

namespace ember {
namespace tools {

namespace {

std::string normalizeFlagName(std::string name) {
  for (char &c : name)
    if (c == '-')
      c = '_';
  if (name == "dumpGraph")
    return "dump_graph";
  if (name == "dumpGraphDAG")
    return "dump_graph_DAG";
  if (name == "dumpIR")
    return "dump_ir";
  return name;
}

void printHelp(const char *usage) {
  outs() << usage << "\n\nFlags (-flag=value, -flag value, or --flag):\n";
  std::vector<gflags::CommandLineFlagInfo> flags;
  gflags::GetAllFlags(&flags);
  for (const auto &f : flags) {
    if (f.filename.find("tools/") == std::string::npos)
      continue;
    std::string name = f.name;
    for (char &c : name)
      if (c == '_')
        c = '-';
    outs() << "  -" << name;
    if (f.type != "bool")
      outs() << "=<" << f.type << ">";
    outs() << "\n      " << f.description;
    if (!f.default_value.empty() && f.default_value != "false")
      outs() << " (default: " << f.default_value << ")";
    outs() << "\n";
  }
  outs().flush();
}

} // namespace

void applyImportFlags(ImportOptions &opts) {
  opts.strictONNX = FLAGS_strict_onnx;
  opts.unrollLoopsUpTo = FLAGS_unroll_loops_up_to;
  opts.maxLoopIterations = FLAGS_max_loop_iterations;
}

void parseCommandLine(int &argc, char **&argv, const char *usage) {
  // Flags are set one by one through gflags so that every mistake gets ember's own
  // "error: ..." and exit code 1 instead of gflags' messages.
  static std::vector<char *> positional;
  positional.assign(1, argv[0]);
  gflags::SetUsageMessage(usage);
  auto fail = [](const Twine &msg) {
    errs() << "error: " << msg << " (see -help)\n";
    std::exit(1);
  };
  std::string symbols, definedInputs, models, modelInputs;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (!arg.starts_with("-") || arg == "-") {
      positional.push_back(argv[i]);
      continue;
    }
    if (arg == "--") {
      for (++i; i < argc; ++i)
        positional.push_back(argv[i]);
      break;
    }
    StringRef body = arg.drop_while([](char c) { return c == '-'; });
    auto [rawName, rawValue] = body.split('=');
    bool hasValue = body.contains('=');
    std::string name = normalizeFlagName(rawName.str());
    if (name == "help" || name == "h" || name == "helpfull" || name == "helpshort") {
      printHelp(usage);
      std::exit(0);
    }
    gflags::CommandLineFlagInfo info;
    if (!gflags::GetCommandLineFlagInfo(name.c_str(), &info) ||
        info.filename.find("tools/") == std::string::npos)
      fail("unknown flag '" + arg + "'");
    std::string value = rawValue.str();
    if (!hasValue) {
      if (info.type == "bool") {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i]; // "-flag value"
      } else {
        fail("flag '" + arg + "' needs a value");
      }
    }
    // Repeatable flags: the definitions accumulate.
    if (name == "onnx_define_symbol") {
      symbols += (symbols.empty() ? "" : ";") + value;
      value = symbols;
    } else if (name == "onnx_define_input") {
      definedInputs += (definedInputs.empty() ? "" : ";") + value;
      value = definedInputs;
    } else if (name == "model") { // a Caffe2 model is two files
      models += (models.empty() ? "" : "\n") + value;
      value = models;
    } else if (name == "model_input") {
      modelInputs += (modelInputs.empty() ? "" : ";") + value;
      value = modelInputs;
    }
    if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty())
      fail("invalid value '" + value + "' for flag '-" + rawName + "' (" + info.type + ")");
  }
  if (!FLAGS_max_memory.empty()) {
    StringRef spec = FLAGS_max_memory;
    uint64_t scale = 1, bytes = 0;
    if (spec.consume_back_insensitive("k"))
      scale = 1ull << 10;
    else if (spec.consume_back_insensitive("m"))
      scale = 1ull << 20;
    else if (spec.consume_back_insensitive("g"))
      scale = 1ull << 30;
    else if (spec.consume_back_insensitive("t"))
      scale = 1ull << 40;
    if (spec.getAsInteger(10, bytes) || bytes == 0 || bytes > ~0ull / scale)
      fail("-max-memory=" + FLAGS_max_memory + ": expected a size such as 512M or 8G");
    setMemoryBudget(bytes * scale);
  }
  positional.push_back(nullptr);
  argc = int(positional.size()) - 1;
  argv = positional.data();
}

int reportError(Error err) {
  std::string msg = errorToString(std::move(err));
  SmallVector<StringRef, 8> lines;
  StringRef(msg).split(lines, '\n');
  // Indented lines continue the message before them (e.g. a list of unsupported nodes).
  for (StringRef line : lines)
    errs() << (line.starts_with(" ") ? "" : "error: ") << line << "\n";
  return 1;
}

Expected<std::vector<InputFile>> readInputFiles() {
  std::vector<InputFile> files;
  if (FLAGS_input.empty())
    return files;
  SmallVector<StringRef, 4> items;
  StringRef(FLAGS_input).split(items, ',', -1, false);
  for (StringRef item : items) {
    InputFile f;
    auto [name, path] = item.split('=');
    if (item.contains('=')) {
      f.name = name.str();
      f.path = path.str();
    } else {
      f.path = item.str();
      if (items.size() > 1)
        return makeError("-input: '" + item +
                         "' needs a NAME=FILE form when several inputs are given");
    }
    if (f.path.empty())
      return makeError("-input: empty file name in '" + item + "'");
    for (const InputFile &other : files)
      if (other.name == f.name)
        return makeError("-input: input '" + f.name + "' is given twice");
    files.push_back(std::move(f));
  }
  EMBER_TRY(readInputValues(files, modelPaths(), /*storedNames=*/false));
  return std::move(files);
}

std::vector<std::string> modelPaths() {
  SmallVector<StringRef, 2> parts;
  StringRef(FLAGS_model).split(parts, '\n', -1, false);
  return std::vector<std::string>(parts.begin(), parts.end());
}

std::string defaultNetworkName() {
  std::vector<std::string> paths = modelPaths();
  if (paths.empty())
    return "";
  StringRef first = paths.front();
  if (sys::fs::is_directory(first))
    return sys::path::filename(sys::path::remove_leading_dotslash(first).rtrim('/')).str();
  StringRef stem = sys::path::stem(first);
  StringRef parent = sys::path::filename(sys::path::parent_path(first));
  // A Caffe2 predict_net is named after its role; its folder names the model.
  if (paths.size() == 2 && stem.contains("predict_net") && !parent.empty() && parent != ".")
    return parent.str();
  return stem.str();
}

Expected<std::pair<std::string, Type>> parseModelInput(StringRef spec) {
  auto bad = [&](const Twine &why) {
    return makeError("-model-input: '" + spec + "': " + why +
                     " (expected NAME,TYPE,[D0,D1,...] or NAME,int8q|uint8q,SCALE,OFFSET,[DIMS])");
  };
  size_t bracket = spec.find('[');
  if (bracket == StringRef::npos || !spec.ends_with("]"))
    return bad("no [dims] at the end");
  SmallVector<StringRef, 4> head;
  spec.take_front(bracket).split(head, ',');
  if (head.empty() || !head.back().empty())
    return bad("no comma before the dims");
  head.pop_back();
  if (head.size() != 2 && head.size() != 4)
    return bad("wrong number of fields");
  StringRef name = head[0].trim(), type = head[1].trim();
  if (name.empty())
    return bad("empty name");
  std::vector<int64_t> dims;
  SmallVector<StringRef, 6> dimText;
  spec.drop_front(bracket + 1).drop_back().split(dimText, ',', -1, false);
  for (StringRef d : dimText) {
    int64_t v;
    if (d.trim().getAsInteger(10, v) || v < 0)
      return bad("dim '" + d.trim() + "' is not a number >= 0");
    dims.push_back(v);
  }
  static const std::pair<const char *, ElemKind> kinds[] = {
      {"float", ElemKind::Float32},   {"float32", ElemKind::Float32},
      {"float16", ElemKind::Float16}, {"bfloat16", ElemKind::BFloat16},
      {"int32", ElemKind::Int32},     {"int64", ElemKind::Int64},
      {"bool", ElemKind::Bool},       {"int8q", ElemKind::QInt8},
      {"uint8q", ElemKind::QUInt8}};
  const ElemKind *kind = nullptr;
  for (const auto &k : kinds)
    if (type == k.first)
      kind = &k.second;
  if (!kind)
    return bad("unknown type '" + type + "'");
  bool quantized = isQuantizedKind(*kind);
  if (quantized != (head.size() == 4))
    return bad(quantized ? "a quantized type needs ,SCALE,OFFSET" : "only int8q and uint8q take a scale and offset");
  EMBER_ASSIGN_OR_RETURN(Type ty, Type::checked(*kind, dims));
  if (quantized) {
    double scale;
    int64_t offset;
    if (head[2].trim().getAsDouble(scale) || !(scale > 0) ||
        head[3].trim().getAsInteger(10, offset) || offset < -128 || offset > 255)
      return bad("scale must be > 0 and offset an integer in range");
    ty.scale = float(scale);
    ty.offset = int32_t(offset);
  }
  return std::make_pair(name.str(), ty);
}

Expected<std::unique_ptr<Module>> loadModelFromFlags(const std::vector<InputFile> &inputs,
                                                    double &loadMillis,
                                                    std::vector<BoundInput> *bound,
                                                    std::vector<GraphValue> *outputs) {
  if (FLAGS_model.empty())
    return makeError("no model given (-model=FILE)");
  ImportOptions opts;
  SmallVector<StringRef, 4> defs;
  StringRef(FLAGS_onnx_define_symbol).split(defs, ';', -1, false);
  for (StringRef def : defs) {
    auto [name, value] = def.split(',');
    int64_t v;
    if (name.empty() || value.trim().getAsInteger(10, v) || v < 0)
      return makeError("-onnx-define-symbol: expected NAME,VALUE with VALUE >= 0, got '" + def +
                       "'");
    auto [it, inserted] = opts.symbols.try_emplace(name.trim(), v);
    if (!inserted && it->second != v)
      return makeError("-onnx-define-symbol: '" + name.trim() + "' is defined as both " +
                       Twine(it->second) + " and " + Twine(v));
  }
  SmallVector<StringRef, 4> bindings;
  StringRef(FLAGS_onnx_define_input).split(bindings, ';', -1, false);
  for (StringRef binding : bindings) {
    auto [name, value] = binding.split('=');
    if (name.empty() || value.empty())
      return makeError("-onnx-define-input: expected NAME=VALUE or NAME=FILE, got '" + binding +
                       "'");
    ImportOptions::ConstantInput c;
    c.source = value.str();
    if (value.ends_with(".npy") || value.ends_with(".pb")) {
      EMBER_ASSIGN_OR_RETURN(Tensor t, readTensorFile(value));
      c.tensor = std::make_shared<const Tensor>(std::move(t));
    } else if (value.trim().getAsDouble(c.scalar)) {
      return makeError("-onnx-define-input: '" + value + "' is neither a number nor a .npy/.pb file");
    }
    if (!opts.constantInputs.try_emplace(name, std::move(c)).second)
      return makeError("-onnx-define-input: '" + name + "' is bound twice");
  }
  SmallVector<StringRef, 4> declared;
  StringRef(FLAGS_model_input).split(declared, ';', -1, false);
  for (StringRef spec : declared) {
    EMBER_ASSIGN_OR_RETURN(auto input, parseModelInput(spec));
    if (!opts.declaredInputs.try_emplace(input.first, input.second).second)
      return makeError("-model-input: '" + input.first + "' is declared twice");
  }
  for (const InputFile &f : inputs) {
    if (!f.value.isTensor())
      continue;
    const Type &ty = f.value.types[0];
    opts.inputShapes[f.name] = {std::vector<int64_t>(ty.dims.begin(), ty.dims.end()), f.path,
                                ty.kind};
  }
  addStructuredInputs(inputs, opts);
  if (outputs)
    opts.graphOutputs = [outputs](const std::vector<GraphValue> &values) { *outputs = values; };
  applyImportFlags(opts);
  opts.warn = [](const std::string &msg) { errs() << "warning: " << msg << "\n"; };
  // model-runner binds the inputs needed at compile time to their -input files; for
  // model-compiler they can only come from -onnx-define-input.
  std::vector<GivenInput> given;
  if (bound)
    given = givenTensors(inputs);
  std::vector<BoundInput> boundInputs;
  auto loadStart = std::chrono::steady_clock::now();
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<Module> M,
                         loadBindingCompileTimeInputs(modelPaths(), std::move(opts), given,
                                                      bound ? "-input" : "-onnx-define-input",
                                                      boundInputs));
  if (bound) {
    for (const BoundInput &b : boundInputs)
      errs() << "note: input '" << b.name << "' fixed at compile time to its given value\n";
    *bound = std::move(boundInputs);
  }
  // What a sequence's or an optional's file fixed at compile time.
  for (const InputFile &f : inputs) {
    if (f.value.isTensor())
      continue;
    errs() << "note: input '" << f.name << "' is " << f.value.describe() << ": ";
    std::vector<std::string> names = f.value.placeholderNames();
    if (f.value.optional && !f.value.present)
      errs() << "it is compiled as absent\n";
    else if (!f.value.sequence)
      errs() << "it is compiled as present\n";
    else if (names.empty())
      errs() << "it is compiled as empty\n";
    else
      errs() << "its length is compiled in, its elements are the inputs " << names.front()
             << (names.size() > 1 ? ".." + names.back() : "") << "\n";
  }
  loadMillis = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - loadStart)
                          .count();
  return std::move(M);
}

Expected<CompileOptions> compileOptionsFromFlags() {
  CompileOptions co;
  co.backend = FLAGS_backend;
  co.backendOptions.target = FLAGS_target;
  co.backendOptions.cpu = FLAGS_mcpu;
  co.backendOptions.features = FLAGS_mattr;
  co.backendOptions.codeModel = FLAGS_code_model;
  co.backendOptions.relocModel = FLAGS_relocation_model;
  co.backendOptions.llvmOptLevel = FLAGS_llvm_opt_level;
  co.backendOptions.dumpLLVMIR = FLAGS_dump_llvm_ir;
  co.backendOptions.dumpLLVMAsm = FLAGS_dump_llvm_asm;
  co.backendOptions.profile = FLAGS_profile;
  co.backendOptions.threads = unsigned(std::max(FLAGS_threads, 0));
  co.backendOptions.openclPlatform = unsigned(std::max(FLAGS_opencl_platform, 0));
  co.backendOptions.openclDevice = unsigned(std::max(FLAGS_opencl_device, 0));
  co.verifyEach = FLAGS_verify_each;
  auto splitList = [](StringRef list) {
    SmallVector<StringRef, 8> parts;
    list.split(parts, ',', -1, false);
    std::vector<std::string> out;
    for (StringRef p : parts)
      out.push_back(p.trim().str());
    return out;
  };
  co.dumpGraphAfter = splitList(FLAGS_dump_graph_after);
  co.dumpIRAfter = splitList(FLAGS_dump_ir_after);
  co.irPipeline = parsePassList(FLAGS_ir_passes);
  // The quantization flags are checked with or without -load-profile: a value that is wrong
  // or not supported is an error rather than a flag silently without effect.
  EMBER_ASSIGN_OR_RETURN(co.quantization.schema,
                         parseQuantizationSchema(FLAGS_quantization_schema));
  EMBER_ASSIGN_OR_RETURN(co.quantization.calibration,
                         parseQuantizationCalibration(FLAGS_quantization_calibration));
  EMBER_TRY(checkQuantizationPrecision(FLAGS_quantization_precision,
                                       FLAGS_quantization_precision_bias));
  co.quantization.channelwise = FLAGS_enable_channelwise;
  co.quantization.keepFloatKinds = splitList(FLAGS_keep_original_precision_for_nodes);
  if (!FLAGS_load_profile.empty()) {
    EMBER_ASSIGN_OR_RETURN(Profile profile, readProfile(FLAGS_load_profile));
    co.quantizationProfile = std::make_shared<const Profile>(std::move(profile));
  }
  return std::move(co);
}

Error printCompileReports(const CompileSummary &s, double loadMillis, const Function &F,
                          const IRFunction &IR) {
  if (FLAGS_print_pass_stats) {
    outs() << "graph passes: " << s.nodesBefore << " nodes before, " << s.nodesAfter
           << " after\n";
    auto printStats = [](const std::vector<PassStats> &runs) {
      for (const PassStats &p : runs)
        outs() << format("  %-24s %6zu -> %-6zu %8.3f ms%s\n", p.pass.c_str(), p.sizeBefore,
                         p.sizeAfter, p.millis, p.changed ? "  changed" : "");
    };
    printStats(s.passStats);
    outs() << "IR passes: instructions before and after\n";
    printStats(s.irPassStats);
  }
  if (FLAGS_print_memory)
    IR.printMemorySummary(outs());
  for (const std::string &line : s.quantization.lines)
    outs() << "quantization: " << line << "\n";
  if (FLAGS_time_phases) {
    double total = loadMillis;
    outs() << "compile phases:\n";
    outs() << format("  %-20s %10.1f ms\n", static_cast<const char *>("import"), loadMillis);
    for (const auto &[phase, ms] : s.phaseMillis) {
      outs() << format("  %-20s %10.1f ms\n", phase.c_str(), ms);
      if (!StringRef(phase).starts_with(" ")) // indented: part of the phase above
        total += ms;
    }
    outs() << format("  %-20s %10.1f ms\n", static_cast<const char *>("total"), total);
  }
  if (FLAGS_dump_graph) {
    F.dump(outs());
    for (const Function *body : nestedBodies(F)) // If's branches, Loop bodies
      body->dump(outs());
  }
  if (!FLAGS_dump_graph_DAG.empty()) {
    std::error_code ec;
    raw_fd_ostream os(FLAGS_dump_graph_DAG, ec, sys::fs::OF_Text);
    if (ec)
      return makeError(FLAGS_dump_graph_DAG + ": " + ec.message());
    F.dumpDAG(os);
  }
  if (FLAGS_dump_ir)
    IR.dump(outs());
  return Error::success();
}

Expected<std::unique_ptr<CompiledModel>> loadAndCompile(const std::vector<InputFile> &inputs,
                                                      std::vector<BoundInput> &bound,
                                                      std::vector<GraphValue> &outputs,
                                                      bool instrumentForProfiling) {
  double loadMillis = 0;
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<Module> M,
                         loadModelFromFlags(inputs, loadMillis, &bound, &outputs));
  EMBER_ASSIGN_OR_RETURN(CompileOptions co, compileOptionsFromFlags());
  co.instrumentForProfiling = instrumentForProfiling;
  EMBER_ASSIGN_OR_RETURN(auto cm, CompiledModel::compile(std::move(M), co));
  EMBER_TRY(printCompileReports(cm->getSummary(), loadMillis, cm->getFunction(), cm->getIR()));
  return std::move(cm);
}

void printProfile(const CompiledModel &cm, unsigned runs) {
  std::vector<InstructionTime> rows = cm.getProfile();
  double total = 0;
  for (const InstructionTime &r : rows)
    total += r.millis;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const InstructionTime &a, const InstructionTime &b) {
                     return a.millis > b.millis;
                   });
  outs() << format("profile: %.3f ms per run over %u run(s), by instruction (slowest first)\n",
                   runs ? total / runs : 0.0, runs);
  for (const InstructionTime &r : rows) {
    const Instruction &I = *r.instr;
    double millis = runs ? r.millis / runs : 0.0;
    outs() << format("  %9.3f ms %5.1f%%  ", millis, total > 0 ? 100 * r.millis / total : 0.0);
    // Products: their rate, and with -peak-gflops its share of the machine's peak.
    int64_t flops = productFlops(I);
    double gflops = flops && millis > 0 ? double(flops) / (millis * 1e6) : 0;
    if (gflops > 0)
      outs() << format("%7.1f GFLOP/s ", gflops);
    if (gflops > 0 && FLAGS_peak_gflops > 0)
      outs() << format("%4.0f%% of peak ", 100 * gflops / FLAGS_peak_gflops);
    outs() << I.getKindName() << " %" << I.getName();
    if (I.getNumOperands())
      outs() << " -> " << I.getOperand(0)->getType().str();
    outs() << "\n";
  }
}

std::string legalizeFileName(StringRef name) {
  std::string out = name.str();
  for (char &c : out)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
      c = '_';
  if (out.empty() || out == "." || out == "..")
    out = "_" + out;
  return out;
}

} // namespace tools
} // namespace ember
