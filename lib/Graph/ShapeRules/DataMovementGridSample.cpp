// Shape rule: GridSample (ember/Semantics/GridSample.h states what it computes).
#include "DataMovementCommon.h"

#include "ember/Semantics/GridSample.h"

using namespace llvm;

namespace ember {

using namespace shape;

Expected<TypeList> inferTypesGridSample(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::GridSample::Input], &grid = in[ops::GridSample::Grid];
  EMBER_TRY(expectRank(x, 4, "input"));
  EMBER_TRY(expectFloat(x, "input"));
  EMBER_TRY(expectSameElement(x, grid, "grid"));
  if (grid.rank() != 4 || grid.dims[0] != x.dims[0] || grid.dims[3] != 2)
    return makeError("grid must be [" + Twine(x.dims[0]) + ", H_out, W_out, 2] for input " +
                     x.str() + ", got " + grid.str());
  const std::string &mode = attrs.get<AttrKind::Mode>();
  if (ember_grid_mode_code(mode.c_str()) < 0)
    return makeError("unknown grid sample mode '" + mode + "' (nearest, linear or cubic)");
  const std::string &padding = attrs.get<AttrKind::PaddingMode>();
  if (ember_grid_padding_code(padding.c_str()) < 0)
    return makeError("unknown padding_mode '" + padding + "' (zeros, border or reflection)");
  int64_t align = attrs.get<AttrKind::AlignCorners>();
  if (align != 0 && align != 1)
    return makeError("align_corners must be 0 or 1, got " + Twine(align));
  Type y = x.withDims({x.dims[0], x.dims[1], grid.dims[1], grid.dims[2]});
  if (y.numElements() != 0 && (x.dims[2] == 0 || x.dims[3] == 0))
    return makeError("input " + x.str() + " has no cells to sample");
  return TypeList{y};
}

} // namespace ember
