// ONNX GridSample (opsets 16 and 20) as a GridSample node (ember/Semantics/GridSample.h).
#include "DataMovementOps.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

Error loadGridSample(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue grid, ctx.input(1));
  ElemKind kind = x.getType().kind, gridKind = grid.getType().kind;
  if (!isFloatKind(kind))
    return ctx.fail("input " + x.getType().str() + ": ember samples float inputs only");
  if (!isFloatKind(gridKind))
    return ctx.fail("grid " + grid.getType().str() + " must be floating point");
  // ONNX lets the grid's float kind differ from the input's; ember's node takes one kind.
  if (gridKind != kind) {
    EMBER_ASSIGN_OR_RETURN(grid, ctx.create(NodeKind::Cast, {grid},
                                            AttrList().set<AttrKind::ResultKind>(
                                                elemKindName(kind).str()),
                                            "grid_cast"));
  }
  // GridSample-16 samples 4-D inputs and names the modes bilinear and bicubic; GridSample-20
  // (and ember) linear and cubic, N-linear and N-cubic on any number of spatial axes.
  bool nd = ctx.opset() >= 20;
  if (!nd && x.getType().rank() != 4)
    return ctx.fail("input " + x.getType().str() +
                    ": GridSample before opset 20 samples 4-D inputs only");
  std::string linear = nd ? "linear" : "bilinear", cubic = nd ? "cubic" : "bicubic";
  std::string onnxMode = ctx.getString("mode", linear);
  std::string mode = onnxMode == linear    ? "linear"
                     : onnxMode == cubic   ? "cubic"
                     : onnxMode == "nearest" ? "nearest"
                                             : "";
  if (mode.empty())
    return ctx.fail("unknown mode '" + onnxMode + "' (" + linear + ", nearest or " + cubic + ")");
  AttrList attrs;
  attrs.set<AttrKind::Mode>(mode)
      .set<AttrKind::PaddingMode>(ctx.getString("padding_mode", "zeros"))
      .set<AttrKind::AlignCorners>(ctx.getInt("align_corners", 0));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::GridSample, {x, grid}, attrs));
  return ctx.setOutput(0, y);
}

} // namespace

void registerDataMovementGridSampleOps(OpRegistry &r) {
  r.add("GridSample", 16, loadGridSample);
  r.add("GridSample", 20, loadGridSample);
}

} // namespace ember
