// Finds a Caffe2 model folder's files and reads its value_info.json (see Caffe2Folder.h).
#include "ember/Importer/Caffe2Folder.h"

#include "OpContext.h"

#include "ember/Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ember {

namespace {

/// DIR/<stem>.pb when it exists, else DIR/<stem>.pbtxt; an error when neither does.
Expected<std::string> findNetFile(StringRef dir, StringRef stem) {
  for (const char *ext : {".pb", ".pbtxt"}) {
    SmallString<256> path(dir);
    sys::path::append(path, stem + ext);
    if (sys::fs::exists(path))
      return path.str().str();
  }
  return makeError(dir + ": is a directory, but not a Caffe2 model's: it holds no " + stem +
                   ".pb or " + stem + ".pbtxt");
}

/// One value_info entry: [elem_type, [d0, d1, ...]].
Expected<Type> valueInfoType(const json::Value &v) {
  const json::Array *pair = v.getAsArray();
  if (!pair || pair->size() != 2)
    return makeError("expected [elem_type, [dims]]");
  std::optional<int64_t> elemType = (*pair)[0].getAsInteger();
  const json::Array *dimList = (*pair)[1].getAsArray();
  if (!elemType || !dimList)
    return makeError("expected [elem_type, [dims]]: elem_type an integer, dims a list");
  EMBER_ASSIGN_OR_RETURN(ElemKind kind, c2::elemKindFromCaffe2(int(*elemType)));
  std::vector<int64_t> dims;
  for (const json::Value &d : *dimList) {
    std::optional<int64_t> n = d.getAsInteger();
    if (!n)
      return makeError("dims must be integers");
    dims.push_back(*n);
  }
  return Type::checked(kind, dims);
}

} // namespace

Expected<StringMap<Type>> readCaffe2ValueInfo(StringRef path) {
  auto buf = MemoryBuffer::getFile(path);
  if (!buf)
    return makeError(path + ": cannot read: " + buf.getError().message());
  Expected<json::Value> doc = json::parse((*buf)->getBuffer());
  if (!doc)
    return withContext(makeError("not valid JSON: " + toString(doc.takeError())), path);
  const json::Object *obj = doc->getAsObject();
  if (!obj)
    return withContext(makeError("expected an object {\"input\": [elem_type, [dims]], ...}"),
                       path);
  StringMap<Type> types;
  for (const auto &entry : *obj) {
    Expected<Type> t = valueInfoType(entry.second);
    if (!t)
      return withContext(withContext(t.takeError(), "input '" + entry.first.str() + "'"), path);
    types[entry.first.str()] = *t;
  }
  return types;
}

Expected<Caffe2Folder> readCaffe2Folder(StringRef dir) {
  Caffe2Folder folder;
  EMBER_ASSIGN_OR_RETURN(folder.predictNet, findNetFile(dir, "predict_net"));
  EMBER_ASSIGN_OR_RETURN(folder.initNet, findNetFile(dir, "init_net"));
  SmallString<256> info(dir);
  sys::path::append(info, "value_info.json");
  if (sys::fs::exists(info)) {
    folder.valueInfo = info.str().str();
    EMBER_ASSIGN_OR_RETURN(folder.inputTypes, readCaffe2ValueInfo(info));
  }
  return folder;
}

std::string caffe2FolderNote(StringRef dir, const Caffe2Folder &folder) {
  return "Caffe2 model " + dir.str() + ": reading " + folder.predictNet + " and " +
         folder.initNet +
         (folder.valueInfo.empty() ? "" : ", input types from " + folder.valueInfo);
}

} // namespace ember
