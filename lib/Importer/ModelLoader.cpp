// loadModelFiles: which loader a model's files go to. An ONNX model is one file; a Caffe2 model is a
// predict_net and an init_net, given as two files or as the directory holding them.
#include "ember/Importer/ModelLoader.h"

#include "ember/Importer/Caffe2Folder.h"

#include "ember/Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ember {

namespace {

bool looksLikeCaffe2Net(StringRef path) {
  StringRef name = sys::path::filename(path);
  return name.contains("predict_net") || name.contains("init_net");
}

} // namespace

Expected<std::unique_ptr<Module>> loadModelFiles(ArrayRef<std::string> paths,
                                            const ImportOptions &opts) {
  if (paths.empty())
    return makeError("no model given");
  if (paths.size() > 2)
    return makeError("too many model files (" + Twine(paths.size()) +
                     "): give one ONNX file, or a Caffe2 predict_net and init_net");
  if (paths.size() == 2)
    return loadCaffe2Model(paths[0], paths[1], opts);
  StringRef path = paths[0];
  if (sys::fs::is_directory(path)) {
    EMBER_ASSIGN_OR_RETURN(Caffe2Folder folder, readCaffe2Folder(path));
    return loadCaffe2ModelWithDefaults(folder.predictNet, folder.initNet, opts,
                                       folder.inputTypes, folder.valueInfo);
  }
  if (looksLikeCaffe2Net(path) && !path.ends_with(".onnx") && !path.ends_with(".onnxtxt"))
    return makeError(path + ": a Caffe2 model needs both nets: -model=predict_net.pb "
                            "-model=init_net.pb (predict first), or -model=DIR holding both");
  return loadONNXModel(path, opts);
}

Expected<std::unique_ptr<Module>> loadModel(StringRef path, const ImportOptions &opts) {
  std::string p = path.str();
  return loadModelFiles(ArrayRef<std::string>(p), opts);
}

} // namespace ember
