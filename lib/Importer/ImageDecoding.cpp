// PNG and JPEG decoding for ImageDecoder (ImageDecoding.h).
//
// libpng and libjpeg report a fatal error by calling a handler that must not return; ours
// record the message and longjmp back to the function that called setjmp. A longjmp skips
// destructors, so each decodeXInto below is written in C style: every object with a destructor
// lives in the DecodeJob its caller owns, and nothing declared after the setjmp needs one.
#include "ember/Importer/ImageDecoding.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>
#include <jerror.h> // the warning codes
#include <png.h>

using namespace llvm;

namespace ember {

std::optional<PixelFormat> parsePixelFormat(StringRef name) {
  if (name == "RGB")
    return PixelFormat::RGB;
  if (name == "BGR")
    return PixelFormat::BGR;
  if (name == "Grayscale")
    return PixelFormat::Grayscale;
  return std::nullopt;
}

StringRef detectImageFormat(ArrayRef<uint8_t> b) {
  auto startsWith = [&](StringRef magic, size_t at = 0) {
    return b.size() >= at + magic.size() &&
           std::memcmp(b.data() + at, magic.data(), magic.size()) == 0;
  };
  if (startsWith(StringRef("\x89PNG\r\n\x1a\n", 8)))
    return "PNG";
  if (startsWith("\xff\xd8\xff"))
    return "JPEG";
  if (startsWith(StringRef("\0\0\0\x0cjP  \r\n\x87\n", 12)) || startsWith("\xff\x4f\xff\x51"))
    return "JPEG 2000";
  if (startsWith(StringRef("II*\0", 4)) || startsWith(StringRef("MM\0*", 4)))
    return "TIFF";
  if (startsWith("RIFF") && startsWith("WEBP", 8))
    return "WebP";
  if (startsWith("GIF87a") || startsWith("GIF89a"))
    return "GIF";
  if (startsWith("BM"))
    return "BMP";
  if (b.size() >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7' &&
      (b[2] == ' ' || b[2] == '\t' || b[2] == '\n' || b[2] == '\r'))
    return "PNM";
  return "";
}

namespace {

/// What a decoder reads, what it fills in, and how it failed. Owned by the C++ caller, so the
/// longjmp out of a library's error handler skips no destructor.
struct DecodeJob {
  ArrayRef<uint8_t> data;
  size_t offset = 0; ///< how far libpng has read
  PixelAllocator allocate;
  Tensor image;                           ///< [height, width, 1 or 3]
  std::vector<unsigned char *> rows;      ///< libpng's row pointers into image
  Error allocError = Error::success();    ///< allocate's refusal
  char message[JMSG_LENGTH_MAX + 64] = {}; ///< the library's error
  std::jmp_buf jump;

  DecodeJob(ArrayRef<uint8_t> data, PixelAllocator allocate) : data(data), allocate(allocate) {}

  /// Allocates image as [height, width, channels]; false when the type or the budget refuses.
  bool allocateImage(size_t height, size_t width, size_t channels) {
    auto type = Type::checkedDims(ElemKind::UInt8, {dim_t(height), dim_t(width), dim_t(channels)});
    if (!type) {
      allocError = type.takeError();
      return false;
    }
    auto t = allocate(*type);
    if (!t) {
      allocError = t.takeError();
      return false;
    }
    image = std::move(*t);
    return true;
  }

  void setMessage(const char *msg) { std::snprintf(message, sizeof message, "%s", msg); }
};

// ---- PNG ---------------------------------------------------------------------------------------

[[noreturn]] void pngError(png_structp png, png_const_charp msg) {
  auto *job = static_cast<DecodeJob *>(png_get_error_ptr(png));
  job->setMessage(msg);
  std::longjmp(job->jump, 1);
}

void pngWarning(png_structp, png_const_charp) {} // ancillary damage: PIL ignores it too

void pngRead(png_structp png, png_bytep out, size_t n) {
  auto *job = static_cast<DecodeJob *>(png_get_io_ptr(png));
  if (job->data.size() - job->offset < n)
    png_error(png, "the data ends early (truncated file)");
  std::memcpy(out, job->data.data() + job->offset, n);
  job->offset += n;
}

/// Decodes job->data as PNG into job->image (1 channel for gray sources, else 3); false with
/// job->message or job->allocError set on failure.
bool decodePNGInto(DecodeJob *job) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, job, pngError, pngWarning);
  if (!png) {
    job->setMessage("libpng could not start (out of memory)");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    job->setMessage("libpng could not start (out of memory)");
    return false;
  }
  if (setjmp(job->jump)) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_set_read_fn(png, job, pngRead);
  png_read_info(png, info);
  png_uint_32 width = 0, height = 0;
  int depth = 0, colorType = 0;
  png_get_IHDR(png, info, &width, &height, &depth, &colorType, nullptr, nullptr, nullptr);
  // Palettes become RGB, small gray depths 8 bits, 16 bits their high byte (PIL's 8-bit
  // modes); alpha, and the alpha a tRNS chunk expands to, is dropped.
  if (colorType == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb(png);
  if ((colorType & PNG_COLOR_MASK_COLOR) == 0 && depth < 8)
    png_set_expand_gray_1_2_4_to_8(png);
  if (depth == 16)
    png_set_strip_16(png);
  png_set_strip_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  png_byte channels = png_get_channels(png, info);
  if ((channels != 1 && channels != 3) || png_get_bit_depth(png, info) != 8 ||
      png_get_rowbytes(png, info) != size_t(width) * channels)
    png_error(png, "unexpected pixel layout after conversion to 8-bit gray or RGB");
  if (!job->allocateImage(height, width, channels)) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  job->rows.resize(height);
  for (png_uint_32 y = 0; y < height; ++y)
    job->rows[y] = job->image.data() + size_t(y) * width * channels;
  png_read_image(png, job->rows.data());
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

// ---- JPEG --------------------------------------------------------------------------------------

struct JPEGErrorManager {
  jpeg_error_mgr pub; // first: libjpeg sees a jpeg_error_mgr *
  DecodeJob *job;
};

[[noreturn]] void jpegErrorExit(j_common_ptr cinfo) {
  auto *err = reinterpret_cast<JPEGErrorManager *>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->job->message);
  std::longjmp(err->job->jump, 1);
}

/// libjpeg's warnings are recoverable: it goes on after damaged data with gray filler. Data
/// that ends early or is corrupt in the scan fails the decode instead (PIL: "image file is
/// truncated"); the other warnings (an unknown JFIF revision) are ignored, as is tracing.
void jpegEmitMessage(j_common_ptr cinfo, int level) {
  if (level >= 0)
    return;
  int code = cinfo->err->msg_code;
  if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_MUST_RESYNC ||
      code == JWRN_NOT_SEQUENTIAL || code == JWRN_HUFF_BAD_CODE)
    jpegErrorExit(cinfo);
}

/// Decodes job->data as JPEG into job->image (1 channel for grayscale JPEGs, else 3); false
/// with job->message or job->allocError set on failure.
bool decodeJPEGInto(DecodeJob *job) {
  jpeg_decompress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo); // jpeg_destroy_decompress is safe on it from here
  JPEGErrorManager err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = jpegErrorExit;
  err.pub.emit_message = jpegEmitMessage;
  err.job = job;
  if (setjmp(job->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, job->data.data(), static_cast<unsigned long>(job->data.size()));
  jpeg_read_header(&cinfo, TRUE);
  switch (cinfo.jpeg_color_space) {
  case JCS_GRAYSCALE:
    cinfo.out_color_space = JCS_GRAYSCALE;
    break;
  case JCS_RGB:
  case JCS_YCbCr:
    cinfo.out_color_space = JCS_RGB;
    break;
  default:
    std::snprintf(job->message, sizeof job->message,
                  "a CMYK or YCCK JPEG (color space %d): ember decodes grayscale, RGB and "
                  "YCbCr JPEGs",
                  int(cinfo.jpeg_color_space));
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  // libjpeg's defaults are PIL's: the accurate integer DCT and "fancy" chroma upsampling
  // (ImageDecoder's documented method).
  jpeg_start_decompress(&cinfo);
  if (!job->allocateImage(cinfo.output_height, cinfo.output_width,
                          size_t(cinfo.output_components))) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  size_t rowBytes = size_t(cinfo.output_width) * size_t(cinfo.output_components);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = job->image.data() + size_t(cinfo.output_scanline) * rowBytes;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  // Every pixel is decoded: what follows the last scan (EOI) is not read.
  jpeg_destroy_decompress(&cinfo);
  return true;
}

} // namespace

Expected<Tensor> decodeImageAsStored(ArrayRef<uint8_t> encoded, PixelAllocator allocate,
                                     StringRef what) {
  StringRef kind = detectImageFormat(encoded);
  if (kind != "PNG" && kind != "JPEG") {
    if (encoded.empty())
      return makeError(what + " is empty: ember decodes PNG and JPEG images");
    std::string found;
    if (kind.empty()) {
      found = "data in no image format ember knows (it starts with";
      for (uint8_t b : encoded.take_front(8))
        found += " " + utohexstr(b, /*LowerCase=*/true, /*Width=*/2);
      found += ")";
    } else {
      found = ("a " + kind + " image").str();
    }
    return makeError(what + " is " + found + ": ember decodes PNG and JPEG images only");
  }
  DecodeJob job(encoded, allocate);
  bool ok = kind == "PNG" ? decodePNGInto(&job) : decodeJPEGInto(&job);
  if (!ok) {
    if (job.allocError)
      return std::move(job.allocError);
    return makeError("cannot decode the " + kind + " image: " + job.message);
  }
  consumeError(std::move(job.allocError));
  return std::move(job.image);
}

Expected<Tensor> decodeImage(ArrayRef<uint8_t> encoded, PixelFormat format,
                             PixelAllocator allocate) {
  EMBER_ASSIGN_OR_RETURN(Tensor image, decodeImageAsStored(encoded, allocate));
  const DimsVec &dims = image.getType().dims;
  size_t pixels = size_t(dims[0]) * size_t(dims[1]);
  size_t channels = size_t(dims[2]);
  const uint8_t *in = image.data();
  if (format == PixelFormat::Grayscale) {
    if (channels == 1)
      return std::move(image);
    EMBER_ASSIGN_OR_RETURN(Type type,
                           Type::checkedDims(ElemKind::UInt8, {dims[0], dims[1], 1}));
    EMBER_ASSIGN_OR_RETURN(Tensor gray, allocate(type));
    uint8_t *out = gray.data();
    // PIL's RGB -> L: ITU-R 601-2 luma in 16-bit fixed point, rounded half up.
    for (size_t i = 0; i < pixels; ++i, in += 3)
      out[i] = uint8_t((uint32_t(in[0]) * 19595 + uint32_t(in[1]) * 38470 +
                        uint32_t(in[2]) * 7471 + 0x8000) >> 16);
    return std::move(gray);
  }
  if (channels == 1) { // a gray image as RGB (and BGR): its value in every channel
    EMBER_ASSIGN_OR_RETURN(Type type,
                           Type::checkedDims(ElemKind::UInt8, {dims[0], dims[1], 3}));
    EMBER_ASSIGN_OR_RETURN(Tensor rgb, allocate(type));
    uint8_t *out = rgb.data();
    for (size_t i = 0; i < pixels; ++i)
      out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = in[i];
    return std::move(rgb);
  }
  if (format == PixelFormat::BGR) {
    uint8_t *p = image.data();
    for (size_t i = 0; i < pixels; ++i, p += 3)
      std::swap(p[0], p[2]);
  }
  return std::move(image);
}

} // namespace ember
