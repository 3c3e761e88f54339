// Images as model inputs (model-runner's -input=NAME=cat.png): PNG and JPEG files decoded by
// the importer's decoder (ember/Importer/ImageDecoding.h) and preprocessed as Glow's
// image-classifier does, by the flags -image-mode, -image-layout, -image-channel-order, -mean,
// -stddev and -image-resize, into the float tensor of one graph input (several files: a batch).
#ifndef EMBER_TOOLS_COMMON_IMAGEINPUTS_H
#define EMBER_TOOLS_COMMON_IMAGEINPUTS_H

#include "ember/Base/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ember {
namespace tools {

/// Whether -input reads \p path as an image: it ends in .png, .jpg or .jpeg (any case).
bool isImageFile(llvm::StringRef path);

/// The float32 tensor of graph input \p name (empty: the model's only input) of the model
/// \p modelPaths made from the images \p paths, one per batch item, preprocessed as the image
/// flags say. The input's declared shape (ONNX) is checked first: a 4-D float input whose
/// channel count matches the images' (1: grayscale, 3: color), whose fixed batch size is the
/// number of images and whose fixed height and width are the images' (or, with -image-resize,
/// the size they are resized to). Each refusal names the file and both sizes.
llvm::Expected<Tensor> readImageInput(llvm::StringRef name, llvm::ArrayRef<std::string> paths,
                                      llvm::ArrayRef<std::string> modelPaths);

} // namespace tools
} // namespace ember

#endif
