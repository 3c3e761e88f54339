// Shape rule: GridSample (ember/Semantics/GridSample.h states what it computes).
#include "DataMovementCommon.h"

#include "ember/Semantics/GridSample.h"

using namespace llvm;

namespace ember {

using namespace shape;

Expected<TypeList> inferTypesGridSample(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::GridSample::Input], &grid = in[ops::GridSample::Grid];
  if (x.rank() < 3 || x.rank() > 2 + EMBER_GRID_MAX_RANK)
    return makeError("input must be [N, C, D1.." + Twine(EMBER_GRID_MAX_RANK) +
                     " spatial dims], got " + x.str());
  EMBER_TRY(expectFloat(x, "input"));
  EMBER_TRY(expectSameElement(x, grid, "grid"));
  size_t r = x.rank() - 2;
  if (grid.rank() != r + 2 || grid.dims[0] != x.dims[0] || grid.dims.back() != dim_t(r))
    return makeError("grid must be [" + Twine(x.dims[0]) + ", " + Twine(r) +
                     " output dims, " + Twine(r) + "] for input " + x.str() + ", got " +
                     grid.str());
  const std::string &mode = attrs.get<AttrKind::Mode>();
  if (ember_grid_mode_code(mode.c_str()) < 0)
    return makeError("unknown grid sample mode '" + mode + "' (nearest, linear or cubic)");
  const std::string &padding = attrs.get<AttrKind::PaddingMode>();
  if (ember_grid_padding_code(padding.c_str()) < 0)
    return makeError("unknown padding_mode '" + padding + "' (zeros, border or reflection)");
  int64_t align = attrs.get<AttrKind::AlignCorners>();
  if (align != 0 && align != 1)
    return makeError("align_corners must be 0 or 1, got " + Twine(align));
  DimsVec dims{x.dims[0], x.dims[1]};
  dims.append(grid.dims.begin() + 1, grid.dims.end() - 1);
  Type y = x.withDims(dims);
  if (y.numElements() != 0)
    for (size_t a = 0; a < r; ++a)
      if (x.dims[2 + a] == 0)
        return makeError("input " + x.str() + " has no cells to sample");
  return TypeList{y};
}

} // namespace ember
