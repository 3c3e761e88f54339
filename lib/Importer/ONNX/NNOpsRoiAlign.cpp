// ONNX RoiAlign (opsets 10 and 16) as a RoiAlign node (ember/Semantics/RoiAlign.h). RoiAlign-10
// has no coordinate_transformation_mode: it samples as RoiAlign-16's output_half_pixel.
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

Error loadRoiAlign(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue rois, ctx.input(1));
  EMBER_ASSIGN_OR_RETURN(NodeValue batchIndices, ctx.input(2));
  const Type &t = x.getType(), &r = rois.getType();
  if (t.rank() != 4 || r.rank() != 2)
    return ctx.fail("input " + t.str() + " and rois " + r.str() +
                    " must be [N, C, H, W] and [num_rois, 4]");
  AttrList attrs;
  attrs
      .set<AttrKind::Dims>({int64_t(r.dims[0]), int64_t(t.dims[1]),
                            ctx.getInt("output_height", 1), ctx.getInt("output_width", 1)})
      .set<AttrKind::Mode>(ctx.getString("mode", "avg"))
      .set<AttrKind::SamplingRatio>(ctx.getInt("sampling_ratio", 0))
      .set<AttrKind::SpatialScale>(ctx.getFloat("spatial_scale", 1.0f))
      .set<AttrKind::CoordinateMode>(
          ctx.opset() >= 16 ? ctx.getString("coordinate_transformation_mode", "half_pixel")
                            : std::string("output_half_pixel"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::RoiAlign, {x, rois, batchIndices}, attrs));
  return ctx.setOutput(0, y);
}

} // namespace

void registerNNRoiAlignOps(OpRegistry &r) {
  r.add("RoiAlign", 10, loadRoiAlign);
  r.add("RoiAlign", 16, loadRoiAlign);
}

} // namespace ember
