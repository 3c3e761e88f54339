// ImageDecoder (opset 20), decoded at compile time: the encoded bytes must be known then (a
// Constant, or a graph input the tools bind to its file's value through the
// CompileTimeInputsError constantInput gives), and the result is a Constant uint8
// [height, width, channels]. The decoding (PNG, JPEG) is ../ImageDecoding.cpp,
// shared with the tools' image inputs.
#include "ember/Importer/ImageDecoding.h"
#include "DataMovementOps.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

Error loadImageDecoder(OpContext &ctx) {
  std::string name = ctx.getString("pixel_format", "RGB");
  std::optional<PixelFormat> format = parsePixelFormat(name);
  if (!format)
    return ctx.fail("attribute 'pixel_format' must be RGB, BGR or Grayscale, got '" + name + "'");
  EMBER_ASSIGN_OR_RETURN(const Tensor *encoded, ctx.constantInput(0));
  const Type &t = encoded->getType();
  if (t.kind != ElemKind::UInt8 || t.rank() != 1)
    return ctx.fail("encoded_stream must be a 1-D uint8 tensor, got " + t.str());
  auto image = decodeImage(ArrayRef<uint8_t>(encoded->data(), encoded->numElements()), *format,
                           [&](const Type &type) { return ctx.newTensor(type, "the image"); });
  if (!image)
    return ctx.fail(errorToString(image.takeError()));
  return ctx.setOutput(0, ctx.createConstant(std::move(*image), "image")->getResult());
}

} // namespace

void registerDataMovementImageOps(OpRegistry &r) { r.add("ImageDecoder", 20, loadImageDecoder); }

} // namespace ember
