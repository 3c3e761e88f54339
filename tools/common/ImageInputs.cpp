#include "ImageInputs.h"
#include "ToolFlags.h"

#include "ember/Importer/ImageDecoding.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Support/Error.h"
#include "ember/Support/MemoryBudget.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace llvm;

namespace ember {
namespace tools {

namespace {

/// What the image flags ask for, checked.
struct Preprocessing {
  float lo = 0, hi = 1; ///< -image-mode: where pixel values 0 and 255 go
  bool nhwc = false;
  bool bgr = true;
  std::vector<double> mean, stddev; ///< per stored channel (R, G, B or gray); empty: 0 and 1
};

Expected<Preprocessing> parseImageFlags() {
  Preprocessing p;
  static const struct {
    const char *name;
    float lo, hi;
  } modes[] = {{"0to1", 0, 1}, {"neg1to1", -1, 1}, {"0to255", 0, 255}, {"neg128to127", -128, 127}};
  auto mode = std::find_if(std::begin(modes), std::end(modes),
                           [](const auto &m) { return FLAGS_image_mode == m.name; });
  if (mode == std::end(modes))
    return makeError("-image-mode must be 0to1, neg1to1, 0to255 or neg128to127, not '" +
                     FLAGS_image_mode + "'");
  p.lo = mode->lo;
  p.hi = mode->hi;
  if (FLAGS_image_layout != "NCHW" && FLAGS_image_layout != "NHWC")
    return makeError("-image-layout must be NCHW or NHWC, not '" + FLAGS_image_layout + "'");
  p.nhwc = FLAGS_image_layout == "NHWC";
  if (FLAGS_image_channel_order != "BGR" && FLAGS_image_channel_order != "RGB")
    return makeError("-image-channel-order must be BGR or RGB, not '" +
                     FLAGS_image_channel_order + "'");
  p.bgr = FLAGS_image_channel_order == "BGR";
  auto parseList = [](StringRef flag, StringRef text, std::vector<double> &out) -> Error {
    SmallVector<StringRef, 3> items;
    text.split(items, ',');
    for (StringRef item : items) {
      double v;
      if (item.trim().getAsDouble(v) || !std::isfinite(v))
        return makeError("-" + flag + "=" + text + ": '" + item + "' is not a number");
      out.push_back(v);
    }
    if (out.size() != 1 && out.size() != 3)
      return makeError("-" + flag + "=" + text + ": give one value for every channel, or one "
                       "per channel (R,G,B)");
    return Error::success();
  };
  if (!FLAGS_mean.empty())
    EMBER_TRY(parseList("mean", FLAGS_mean, p.mean));
  if (!FLAGS_stddev.empty())
    EMBER_TRY(parseList("stddev", FLAGS_stddev, p.stddev));
  for (double s : p.stddev)
    if (s == 0)
      return makeError("-stddev=" + FLAGS_stddev + ": a channel's deviation must not be 0");
  return std::move(p);
}

std::string dimsText(ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "," : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s + "]";
}

std::string channelsText(int64_t c) {
  return c == 1 ? "1 channel (grayscale)" : c == 3 ? "3 channels (color)"
                                                   : std::to_string(c) + " channels";
}

/// \p image (uint8 [h, w, c]) as floats at \p outH x \p outW: the same values when the size is
/// the same, else bilinear with half-pixel centers (OpenCV's and ONNX Resize's default).
std::vector<float> sampled(const Tensor &image, size_t outH, size_t outW) {
  const DimsVec &d = image.getType().dims;
  size_t inH = d[0], inW = d[1], c = d[2];
  const uint8_t *px = image.data();
  std::vector<float> out(outH * outW * c);
  auto source = [](size_t o, size_t outN, size_t inN, size_t &i0, size_t &i1, float &f) {
    float s = (float(o) + 0.5f) * float(inN) / float(outN) - 0.5f;
    s = std::clamp(s, 0.0f, float(inN - 1));
    i0 = size_t(s);
    i1 = std::min(i0 + 1, inN - 1);
    f = s - float(i0);
  };
  for (size_t y = 0; y < outH; ++y) {
    size_t y0, y1;
    float fy;
    source(y, outH, inH, y0, y1, fy);
    for (size_t x = 0; x < outW; ++x) {
      size_t x0, x1;
      float fx;
      source(x, outW, inW, x0, x1, fx);
      for (size_t k = 0; k < c; ++k) {
        auto at = [&](size_t yy, size_t xx) { return float(px[(yy * inW + xx) * c + k]); };
        float top = at(y0, x0) + (at(y0, x1) - at(y0, x0)) * fx;
        float bottom = at(y1, x0) + (at(y1, x1) - at(y1, x0)) * fx;
        out[(y * outW + x) * c + k] = top + (bottom - top) * fy;
      }
    }
  }
  return out;
}

Expected<Tensor> decodeFile(const std::string &path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(path + ": " + buffer.getError().message());
  ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
                          (*buffer)->getBufferSize());
  auto image = decodeImageAsStored(
      bytes,
      [&](const Type &type) -> Expected<Tensor> {
        EMBER_TRY(checkMemoryBudget(type.sizeInBytes(), "the image " + type.str()));
        return Tensor(type);
      },
      "the file");
  if (!image)
    return withContext(image.takeError(), path);
  return image;
}

} // namespace

bool isImageFile(StringRef path) {
  return path.ends_with_insensitive(".png") || path.ends_with_insensitive(".jpg") ||
         path.ends_with_insensitive(".jpeg");
}

Expected<Tensor> readImageInput(StringRef name, ArrayRef<std::string> paths,
                                ArrayRef<std::string> modelPaths) {
  EMBER_ASSIGN_OR_RETURN(Preprocessing pre, parseImageFlags());
  // The input as declared: -1 where a dim is free (symbolic, or no shape at all).
  std::vector<int64_t> declared(4, -1);
  std::string input = "input '" + name.str() + "'";
  EMBER_ASSIGN_OR_RETURN(std::vector<DeclaredTensorInput> inputs,
                         readDeclaredTensorInputs(modelPaths));
  const DeclaredTensorInput *decl = nullptr;
  for (const DeclaredTensorInput &in : inputs)
    if (in.name == name || (name.empty() && inputs.size() == 1))
      decl = &in;
  if (decl) {
    input = "input '" + decl->name + "'";
    if (decl->kind && *decl->kind != ElemKind::Float32)
      return makeError(paths[0] + ": " + input + " is " + elemKindName(*decl->kind) +
                       ", an image input needs a float32 input");
    if (decl->dims && decl->dims->size() != 4)
      return makeError(paths[0] + ": " + input + " " + dimsText(*decl->dims) +
                       " is not 4-D: an image input is [N,C,H,W] or [N,H,W,C] (-image-layout)");
    if (decl->dims)
      declared = *decl->dims;
    input += " " + dimsText(declared) + " (" + FLAGS_image_layout + ")";
  }
  size_t cAt = pre.nhwc ? 3 : 1, hAt = pre.nhwc ? 1 : 2, wAt = pre.nhwc ? 2 : 3;
  if (declared[0] >= 0 && size_t(declared[0]) != paths.size())
    return makeError(input + " takes a batch of " + Twine(declared[0]) +
                     (declared[0] == 1 ? " image" : " images") + ", but " +
                     Twine(paths.size()) + " are given: " + join(paths, ", "));
  std::vector<Tensor> images;
  for (const std::string &path : paths) {
    EMBER_ASSIGN_OR_RETURN(Tensor image, decodeFile(path));
    images.push_back(std::move(image));
  }
  const DimsVec &first = images[0].getType().dims;
  size_t c = first[2];
  size_t height = declared[hAt] >= 0 ? size_t(declared[hAt]) : first[0];
  size_t width = declared[wAt] >= 0 ? size_t(declared[wAt]) : first[1];
  for (size_t i = 0; i < images.size(); ++i) {
    const DimsVec &d = images[i].getType().dims;
    std::string image = paths[i] + ": the image is " + Twine(d[1]).str() + "x" +
                        Twine(d[0]).str() + " (width x height) with " + channelsText(d[2]);
    if (declared[cAt] >= 0 && int64_t(d[2]) != declared[cAt])
      return makeError(image + ", but " + input + " takes " + channelsText(declared[cAt]));
    if (d[2] != c)
      return makeError(image + ", but " + paths[0] + " of the same batch has " +
                       channelsText(int64_t(c)));
    bool hFixed = declared[hAt] >= 0, wFixed = declared[wAt] >= 0;
    if ((d[0] == height && d[1] == width) || (hFixed && wFixed && FLAGS_image_resize))
      continue;
    if ((d[0] != height && hFixed) || (d[1] != width && wFixed))
      return makeError(image + ", but " + input + " takes " +
                       (!wFixed   ? "images of height " + std::to_string(height)
                        : !hFixed ? "images of width " + std::to_string(width)
                                  : std::to_string(width) + "x" + std::to_string(height) +
                                        " images: resize it, or give -image-resize to have "
                                        "it resized (bilinear)"));
    return makeError(image + ", but " + paths[0] + " of the same batch is " + Twine(width) +
                     "x" + Twine(height));
  }
  for (const auto &[values, flag] : {std::pair(&pre.mean, "-mean"), {&pre.stddev, "-stddev"}})
    if (values->size() > 1 && values->size() != c)
      return makeError(std::string(flag) + " gives 3 values (R,G,B), but " + paths[0] +
                       " is a grayscale image: give one");
  DimsVec dims = {dim_t(images.size()), dim_t(c), dim_t(height), dim_t(width)};
  if (pre.nhwc)
    dims = {dim_t(images.size()), dim_t(height), dim_t(width), dim_t(c)};
  EMBER_ASSIGN_OR_RETURN(Type type, Type::checkedDims(ElemKind::Float32, dims));
  EMBER_TRY(checkMemoryBudget(type.sizeInBytes(), "the image " + input + " " + type.str()));
  Tensor t(type);
  float *out = t.dataAs<float>();
  // Glow's order: (pixel - mean) / stddev, then 0..255 mapped onto the -image-mode range.
  float scale = (pre.hi - pre.lo) / 255.0f;
  size_t plane = height * width;
  for (size_t n = 0; n < images.size(); ++n) {
    std::vector<float> px = sampled(images[n], height, width);
    float *item = out + n * plane * c;
    for (size_t k = 0; k < c; ++k) {
      double mean = pre.mean.empty() ? 0 : pre.mean[std::min(k, pre.mean.size() - 1)];
      double stddev = pre.stddev.empty() ? 1 : pre.stddev[std::min(k, pre.stddev.size() - 1)];
      size_t channel = pre.bgr && c == 3 ? 2 - k : k; // the stored R,G,B's place in the input
      for (size_t i = 0; i < plane; ++i) {
        float v = float((px[i * c + k] - mean) / stddev) * scale + pre.lo;
        item[pre.nhwc ? i * c + channel : channel * plane + i] = v;
      }
    }
  }
  return std::move(t);
}

} // namespace tools
} // namespace ember
