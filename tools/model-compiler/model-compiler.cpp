// model-compiler: compile a model once into a bundle (include/ember/Driver/Bundle.h) that a C
// program links with no ember in it, for this machine or another (-target, -mcpu).
#include "CommandLine.h"
#include "CompileFromFlags.h"
#include "ModelLoading.h"
#include "ToolFlags.h"
#include "ToolReports.h"

#include "ember/Driver/Bundle.h"
#include "ember/Support/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace ember;
using namespace llvm;

DEFINE_string(emit_bundle, "", "Write the bundle into this directory (required)");
DEFINE_string(network_name, "",
              "The bundle's name NET: file names, macro prefix, default entry point (default: "
              "the model file's stem, made a C identifier)");
DEFINE_string(main_entry_name, "", "The entry point's symbol (default: NET)");
DEFINE_string(bundle_api, "static",
              "static: NET.h has an offset macro per input and output; dynamic: NET_config, a "
              "symbol table to look them up by name at run time");

DEFINE_string(bundle_weights, "bin",
              "The forms of the constant weights to write, comma-separated: bin "
              "(NET.weights.bin, the bytes, loaded at run time), txt (NET.weights.txt, a C "
              "initializer list to #include, six times larger), object (NET.weights.o, the "
              "array NET_constant_weights, linked into the program: no file to read)");

DEFINE_string(sanitize_bundle, "",
              "For testing: thread instruments a CPU bundle's code, kernels included, with "
              "ThreadSanitizer; the program is then built with -fsanitize=thread (the "
              "manifest's link_flags say so)");

DEFINE_bool(instrument, false,
            "Also give the bundle NET_traced, which records when each instruction and each "
            "thread's part of it ran into a buffer its caller passes (docs/bundles.md)");

namespace {

/// -bundle-weights into \p b.
Error parseBundleWeights(BundleOptions &b) {
  b.weightsBin = b.weightsText = b.weightsObject = false;
  const char *const valid = " (bin, txt, object)";
  SmallVector<StringRef, 3> forms;
  StringRef(FLAGS_bundle_weights).split(forms, ',', -1, /*KeepEmpty=*/false);
  if (forms.empty())
    return makeError(Twine("-bundle-weights names no form of the weights") + valid);
  for (StringRef f : forms) {
    f = f.trim();
    if (f == "bin")
      b.weightsBin = true;
    else if (f == "txt")
      b.weightsText = true;
    else if (f == "object")
      b.weightsObject = true;
    else
      return makeError("-bundle-weights: unknown form '" + f + "'" + valid);
  }
  return Error::success();
}

Error compileMain() {
  if (FLAGS_emit_bundle.empty())
    return makeError("-emit-bundle=DIR is required: the directory to write the bundle into");
  if (FLAGS_bundle_api != "static" && FLAGS_bundle_api != "dynamic")
    return makeError("-bundle-api must be static or dynamic, not '" + FLAGS_bundle_api + "'");
  BundleOptions b;
  EMBER_TRY(parseBundleWeights(b));
  if (FLAGS_model.empty())
    return makeError("no model given (-model=FILE)");
  EMBER_ASSIGN_OR_RETURN(std::vector<tools::InputFile> inputs, tools::readInputFiles());
  double loadMillis = 0;
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<Module> M, tools::loadModelFromFlags(inputs, loadMillis));

  b.outputDir = FLAGS_emit_bundle;
  EMBER_ASSIGN_OR_RETURN(b.networkName,
                         tools::bundleNetworkName(FLAGS_network_name, "-network-name"));
  b.entryName = FLAGS_main_entry_name;
  b.dynamicAPI = FLAGS_bundle_api == "dynamic";
  b.modelPath = tools::modelPaths().front();
  EMBER_ASSIGN_OR_RETURN(CompileOptions co, tools::compileOptionsFromFlags());
  if (FLAGS_sanitize_bundle != "" && FLAGS_sanitize_bundle != "thread")
    return makeError("-sanitize-bundle must be thread, not '" + FLAGS_sanitize_bundle + "'");
  co.backendOptions.threadSanitizer = FLAGS_sanitize_bundle == "thread";
  co.backendOptions.instrument = FLAGS_instrument;
  EMBER_ASSIGN_OR_RETURN(BundleResult r, writeBundle(std::move(M), co, b));
  EMBER_TRY(tools::printCompileReports(r.summary, loadMillis, *r.function, *r.ir));

  // The summary a user reads after every compile.
  const IRFunction &IR = *r.ir;
  auto mib = [](uint64_t bytes) { return format("%.2f MiB", double(bytes) / (1 << 20)); };
  outs() << "bundle '" << b.networkName << "' for " << r.triple << " in " << FLAGS_emit_bundle
         << "\n";
  outs() << "  nodes:       " << r.summary.nodesBefore << " imported, " << r.summary.nodesAfter
         << " after optimization\n";
  outs() << "  constant:    " << IR.constantSize << " bytes (" << mib(IR.constantSize) << ")\n";
  outs() << "  mutable:     " << IR.mutableSize << " bytes (" << mib(IR.mutableSize) << ")\n";
  outs() << "  activations: " << IR.activationsSize << " bytes (" << mib(IR.activationsSize)
         << ")\n";
  double total = loadMillis;
  std::string phases;
  raw_string_ostream ps(phases);
  ps << format("import %.0f ms", loadMillis);
  for (const auto &[phase, ms] : r.summary.phaseMillis)
    if (!StringRef(phase).starts_with(" ")) {
      ps << format(", %s %.0f ms", phase.c_str(), ms);
      total += ms;
    }
  outs() << "  time:        " << format("%.0f ms", total) << " (" << phases << ")\n";
  outs() << "  files:      ";
  for (const std::string &f : r.files)
    outs() << " " << sys::path::filename(f);
  outs() << "\n";
  return Error::success();
}

} // namespace

int main(int argc, char **argv) {
  tools::parseCommandLine(argc, argv,
                          "model-compiler: compile a model into a bundle to link into a C "
                          "program.\n"
                          "  model-compiler -model=m.onnx -emit-bundle=out/ "
                          "[-network-name=net] [-target=aarch64-linux-gnu -mcpu=cortex-a72]\n"
                          "  cc app.c out/m.o -lm -o app");
  if (argc > 1) {
    errs() << "error: unexpected argument '" << argv[1] << "'\n";
    return 1;
  }
  try {
    if (Error err = compileMain())
      return tools::reportError(std::move(err));
  } catch (const std::bad_alloc &) {
    return tools::reportError(makeError("out of memory"));
  }
  return 0;
}
