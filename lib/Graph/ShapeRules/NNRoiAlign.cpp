// Shape rule: RoiAlign (ember/Semantics/RoiAlign.h states what it computes).
#include "Common.h"

#include <cmath>

using namespace llvm;

namespace ember {

using namespace shape;

Expected<TypeList> inferTypesRoiAlign(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::RoiAlign::Input], &rois = in[ops::RoiAlign::Rois];
  const Type &batches = in[ops::RoiAlign::BatchIndices];
  EMBER_TRY(expectRank(x, 4, "input"));
  EMBER_TRY(expectFloat(x, "input"));
  if (rois.kind != x.kind || rois.rank() != 2 || rois.dims[1] != 4)
    return makeError("rois must be " + elemKindName(x.kind) + "<R x 4>, got " + rois.str());
  if (batches.kind != ElemKind::Int64 || batches.rank() != 1 || batches.dims[0] != rois.dims[0])
    return makeError("batch_indices must be int64<" + Twine(rois.dims[0]) + ">, got " +
                     batches.str());
  const std::vector<int64_t> &dims = attrs.get<AttrKind::Dims>();
  if (dims.size() != 4 || dims[0] != int64_t(rois.dims[0]) || dims[1] != int64_t(x.dims[1]) ||
      dims[2] <= 0 || dims[3] <= 0)
    return makeError("result dims " + intsToString(dims) + " must be [" + Twine(rois.dims[0]) +
                     ", " + Twine(x.dims[1]) + ", output_height > 0, output_width > 0]");
  const std::string &mode = attrs.get<AttrKind::Mode>();
  if (mode != "avg" && mode != "max")
    return makeError("unknown RoiAlign mode '" + mode + "' (avg or max)");
  const std::string &coord = attrs.get<AttrKind::CoordinateMode>();
  if (coord != "half_pixel" && coord != "output_half_pixel")
    return makeError("unknown coordinate_transformation_mode '" + coord +
                     "' (half_pixel or output_half_pixel)");
  if (attrs.get<AttrKind::SamplingRatio>() < 0)
    return makeError("sampling_ratio must not be negative, got " +
                     Twine(attrs.get<AttrKind::SamplingRatio>()));
  float scale = attrs.get<AttrKind::SpatialScale>();
  if (!std::isfinite(scale))
    return makeError("spatial_scale must be finite");
  EMBER_ASSIGN_OR_RETURN(Type y, Type::checked(x.kind, dims));
  if (y.numElements() != 0 && (x.dims[2] == 0 || x.dims[3] == 0))
    return makeError("input " + x.str() + " has no cells to sample");
  return TypeList{y};
}

} // namespace ember
