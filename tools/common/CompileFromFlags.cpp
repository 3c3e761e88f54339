#include "CompileFromFlags.h"
#include "ModelLoading.h"
#include "ToolFlags.h"
#include "ToolReports.h"

#include "ember/Support/Error.h"
#include "ember/Support/PassManager.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <string>

using namespace llvm;

namespace ember {
namespace tools {

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

Expected<std::unique_ptr<CompiledModel>> loadAndCompile(const std::vector<InputFile> &inputs,
                                                      std::vector<BoundInput> &bound,
                                                      std::vector<GraphValue> &outputs,
                                                      bool instrumentForProfiling,
                                                      bool timeInstructions,
                                                      double *importMillis) {
  double loadMillis = 0;
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<Module> M,
                         loadModelFromFlags(inputs, loadMillis, &bound, &outputs));
  EMBER_ASSIGN_OR_RETURN(CompileOptions co, compileOptionsFromFlags());
  co.instrumentForProfiling = instrumentForProfiling;
  co.backendOptions.profile |= timeInstructions;
  // The CPU's trace places instructions and their threads' parts where they ran; the other
  // backends' record nothing, and -trace places their instructions from the profile.
  co.backendOptions.instrument |= timeInstructions;
  if (importMillis)
    *importMillis = loadMillis;
  EMBER_ASSIGN_OR_RETURN(auto cm, CompiledModel::compile(std::move(M), co));
  EMBER_TRY(printCompileReports(cm->getSummary(), loadMillis, cm->getFunction(), cm->getIR()));
  return std::move(cm);
}

} // namespace tools
} // namespace ember
