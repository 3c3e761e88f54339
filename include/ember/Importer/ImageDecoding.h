// Decoding encoded images (ONNX's ImageDecoder, decoded at compile time; the tools' image
// -input files): PNG through libpng and JPEG through libjpeg-turbo, into uint8 [height, width,
// channels] with the channels of the ONNX reference (PIL): RGB, BGR, or Grayscale as PIL's
// convert("L") computes it; or with the channels the image stores. Other formats are
// recognized by their magic bytes and refused by name; damaged or truncated data is an error,
// never a crash and never a partial image.
#ifndef EMBER_IMPORTER_IMAGEDECODING_H
#define EMBER_IMPORTER_IMAGEDECODING_H

#include "ember/Base/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace ember {

enum class PixelFormat { RGB, BGR, Grayscale };

/// "RGB", "BGR" or "Grayscale" (ONNX's pixel_format names); nullopt for anything else.
std::optional<PixelFormat> parsePixelFormat(llvm::StringRef name);

/// The image format \p bytes start with, by its magic bytes: "PNG", "JPEG", "BMP", "TIFF",
/// "WebP", "PNM", "JPEG 2000", "GIF"; "" when none of them.
llvm::StringRef detectImageFormat(llvm::ArrayRef<uint8_t> bytes);

/// Allocates a tensor of the given type for decoded pixels (the caller checks its memory
/// budget there; an error is returned unchanged by decodeImage).
using PixelAllocator = llvm::function_ref<llvm::Expected<Tensor>(const Type &)>;

/// \p encoded (a PNG or JPEG file's bytes) decoded into a uint8 [height, width, C] tensor:
/// C = 3 for RGB and BGR (a grayscale image's gray repeated, an alpha channel dropped), 1 for
/// Grayscale (a color image's luma L = (19595 R + 38470 G + 7471 B + 2^15) >> 16, ITU-R 601-2
/// as PIL rounds it). 16-bit samples keep their high byte, as PIL's 8-bit modes do.
llvm::Expected<Tensor> decodeImage(llvm::ArrayRef<uint8_t> encoded, PixelFormat format,
                                   PixelAllocator allocate);

/// \p encoded decoded with the channels it stores: uint8 [height, width, 1] for a gray image
/// (with or without alpha), [height, width, 3] in RGB order for the others (a palette
/// expanded, alpha dropped). \p what names the data in messages ("the file is a BMP image").
llvm::Expected<Tensor> decodeImageAsStored(llvm::ArrayRef<uint8_t> encoded,
                                           PixelAllocator allocate,
                                           llvm::StringRef what = "the encoded stream");

} // namespace ember

#endif
