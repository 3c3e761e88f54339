// Shape rule: Resize.
#include "DataMovementCommon.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace llvm;

namespace ember {

using namespace shape;

Expected<TypeList> inferTypesResize(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[0];
  unsigned rank = x.rank();
  const auto &dims = attrs.get<AttrKind::Dims>();
  const auto &scales = attrs.get<AttrKind::Scales>();
  const auto &roi = attrs.get<AttrKind::Roi>();
  if (dims.size() != rank)
    return makeError("result dims " + intsToString(dims) + " do not match the rank of " + x.str());
  if (!scales.empty() && scales.size() != rank)
    return makeError("scales need one value per axis of " + x.str());
  for (float s : scales)
    if (!(s > 0) || !std::isfinite(s))
      return makeError("scales must be positive and finite");
  for (float r : roi)
    if (!std::isfinite(r))
      return makeError("roi values must be finite");
  const std::string &mode = attrs.get<AttrKind::Mode>();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return makeError("unknown resize mode '" + mode + "' (nearest, linear or cubic)");
  const std::string &coord = attrs.get<AttrKind::CoordinateMode>();
  bool knownCoord = StringSwitch<bool>(coord)
                        .Cases("half_pixel", "pytorch_half_pixel", "align_corners", true)
                        .Cases("asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize", true)
                        .Case("half_pixel_symmetric", true)
                        .Default(false);
  if (!knownCoord)
    return makeError("unknown coordinate_transformation_mode '" + coord + "'");
  if ((coord == "tf_crop_and_resize") != (roi.size() == 2 * rank))
    return makeError("roi must have 2 values per axis with tf_crop_and_resize, and none "
                     "otherwise; got " +
                     Twine(roi.size()) + " values");
  int64_t antialias = attrs.get<AttrKind::Antialias>();
  if (antialias != 0 && antialias != 1)
    return makeError("antialias must be 0 or 1, got " + Twine(antialias));
  if (antialias && mode == "nearest")
    return makeError("antialias applies to the linear and cubic modes, not nearest");
  const std::string &nearest = attrs.get<AttrKind::NearestMode>();
  bool knownNearest = StringSwitch<bool>(nearest)
                          .Cases("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", true)
                          .Default(false);
  if (!knownNearest)
    return makeError("unknown nearest_mode '" + nearest + "'");
  EMBER_ASSIGN_OR_RETURN(Type t, Type::checked(x.kind, dims));
  for (unsigned d = 0; d < rank; ++d)
    if (x.dims[d] == 0 && t.dims[d] != 0)
      return makeError("axis " + Twine(d) + " of " + x.str() + " is empty: nothing to resample");
  return TypeList{x.withDims(t.dims)};
}

} // namespace ember
