// Bundles (model-compiler -emit-bundle): a model compiled once into files that a C or C++
// program links with no ember, LLVM or protobuf in it. For network name NET, in the output
// directory:
//   NET.o            int NET(uint8_t *constantWeight, uint8_t *mutableWeight,
//                            uint8_t *activations), C linkage; 0 on success, else an error code
//   NET.h            the regions' sizes and alignment, each placeholder's offset (static API) or
//                    the declaration of NET_config, its symbol table (dynamic API)
//   NET.weights.bin  the constant region, exactly NET_CONSTANT_MEM_SIZE bytes (by default)
//   NET.weights.txt  the same bytes as a C initializer list (when asked for)
//   NET.weights.o    the same bytes as the read-only array NET_constant_weights, an object to
//                    link instead of reading a file (when asked for)
//   NET.json         the manifest: names, types, shapes, offsets, sizes, target, link flags,
//                    the files written
// The same model and options always give byte-identical files.
#ifndef EMBER_DRIVER_BUNDLE_H
#define EMBER_DRIVER_BUNDLE_H

#include "ember/Driver/CompiledModel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ember {

struct BundleOptions {
  std::string outputDir;
  /// NET: a C identifier ([A-Za-z_][A-Za-z0-9_]*).
  std::string networkName;
  /// The entry point's symbol; NET when empty.
  std::string entryName;
  /// The dynamic API: NET_config with a symbol table instead of one offset macro per
  /// placeholder.
  bool dynamicAPI = false;
  /// Where the model came from, for the header's comment (its file name is printed).
  std::string modelPath;
  /// The forms of the constant weights to write (-bundle-weights): NET.weights.bin,
  /// NET.weights.txt, a C initializer list six times larger (953 MB for resnet50), and
  /// NET.weights.o, an object defining NET_constant_weights for the bundle's target.
  bool weightsBin = true, weightsText = false, weightsObject = false;
};

struct BundleResult {
  std::vector<std::string> files; ///< in the order written
  CompileSummary summary;
  std::string triple;
  std::unique_ptr<Module> module; ///< the optimized graph, for dumps
  const Function *function = nullptr;
  std::unique_ptr<IRFunction> ir; ///< the planned IR the object was made from
};

/// Compiles the module's main function for opts.backend and writes the bundle.
llvm::Expected<BundleResult> writeBundle(std::unique_ptr<Module> M, const CompileOptions &opts,
                                         const BundleOptions &bundle);

/// \p name as a C identifier: characters outside [A-Za-z0-9_] become '_', and a leading digit
/// (or an empty name) gets a '_' in front.
std::string legalizeCIdentifier(llvm::StringRef name);

/// The version string bundles record ("ember <major.minor.patch>").
llvm::StringRef compilerVersion();

} // namespace ember

#endif
