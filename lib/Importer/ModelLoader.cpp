// loadModelFiles: which loader a model's files go to. An ONNX model is one file; a Caffe2 model is a
// predict_net and an init_net, given as two files or as the directory holding them.
#include "ember/Importer/ModelLoader.h"

#include "ember/Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ember {

namespace {

/// DIR/<stem>.pb or DIR/<stem>.pbtxt, whichever exists (an error if both or neither do).
Expected<std::string> findNetFile(StringRef dir, StringRef stem) {
  SmallString<256> pb(dir), pbtxt(dir);
  sys::path::append(pb, stem + ".pb");
  sys::path::append(pbtxt, stem + ".pbtxt");
  bool hasPb = sys::fs::exists(pb), hasText = sys::fs::exists(pbtxt);
  if (hasPb && hasText)
    return makeError(dir + ": holds both " + stem + ".pb and " + stem +
                     ".pbtxt; give the two files with -model=PREDICT -model=INIT");
  if (!hasPb && !hasText)
    return makeError(dir + ": is a directory, but not a Caffe2 model's: it holds no " + stem +
                     ".pb or " + stem + ".pbtxt");
  return (hasPb ? pb : pbtxt).str().str();
}

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
    EMBER_ASSIGN_OR_RETURN(std::string predict, findNetFile(path, "predict_net"));
    EMBER_ASSIGN_OR_RETURN(std::string init, findNetFile(path, "init_net"));
    return loadCaffe2Model(predict, init, opts);
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
