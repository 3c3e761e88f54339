// A Caffe2 model folder as the model zoo ships it: predict_net and init_net, binary and/or text,
// and value_info.json, which gives the input's element type and dims. loadModel reads a folder
// through these; the tools name the files it reads (caffe2FolderNote).
#ifndef EMBER_IMPORTER_CAFFE2FOLDER_H
#define EMBER_IMPORTER_CAFFE2FOLDER_H

#include "ember/Graph/Graph.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace ember {
struct ImportOptions;

/// The files of a model folder \p dir: for each net <stem>.pb when present (binary first, as
/// Glow reads a zoo folder), else <stem>.pbtxt; and the input types of value_info.json
/// (`{"data": [elem_type, [dims]]}`, elem_type a Caffe2 TensorProto DataType) when present.
struct Caffe2Folder {
  std::string predictNet, initNet, valueInfo; ///< valueInfo empty when the folder has none
  llvm::StringMap<Type> inputTypes;
};
llvm::Expected<Caffe2Folder> readCaffe2Folder(llvm::StringRef dir);

/// "Caffe2 model DIR: reading DIR/predict_net.pb and DIR/init_net.pb, input types from
/// DIR/value_info.json": what the tools note for a folder.
std::string caffe2FolderNote(llvm::StringRef dir, const Caffe2Folder &folder);

/// The input types a value_info.json file declares; errors name the file and the entry.
llvm::Expected<llvm::StringMap<Type>> readCaffe2ValueInfo(llvm::StringRef path);

/// loadCaffe2Model with default input types (a folder's value_info.json) that an explicit
/// -model-input (ImportOptions::declaredInputs) overrides; \p defaultsFrom names their file.
llvm::Expected<std::unique_ptr<Module>>
loadCaffe2ModelWithDefaults(llvm::StringRef predictNet, llvm::StringRef initNet,
                            const ImportOptions &opts, const llvm::StringMap<Type> &defaults,
                            llvm::StringRef defaultsFrom);

} // namespace ember

#endif
