// Shared by the ONNX data movement loaders: DataMovementOps.cpp (reshaping, shape queries, constants),
// DataMovementOpsSlice.cpp (slice, split, pad, tile, expand, depth/space, trilu), DataMovementOpsIndexed.cpp
// (gather, scatter, one-hot, reverse-sequence, data-dependent ops), DataMovementOpsResize.cpp and
// DataMovementOpsComposed.cpp (CenterCropPad, Col2Im, AffineGrid), DataMovementOpsImage.cpp
// (ImageDecoder).
#ifndef EMBER_LIB_IMPORTER_ONNX_DATAMOVEMENTOPS_H
#define EMBER_LIB_IMPORTER_ONNX_DATAMOVEMENTOPS_H

#include "OpContext.h"

namespace ember {

void registerDataMovementSliceOps(OpRegistry &r);
void registerDataMovementIndexedOps(OpRegistry &r);
void registerDataMovementResizeOps(OpRegistry &r);
void registerDataMovementGridSampleOps(OpRegistry &r);
void registerDataMovementDataDependentOps(OpRegistry &r);
void registerDataMovementComposedOps(OpRegistry &r);
void registerDataMovementImageOps(OpRegistry &r);

/// \p axes (negative ones count from the end) normalized for \p rank; duplicates are an error.
llvm::Expected<std::vector<int64_t>> normalizeAxes(OpContext &ctx, llvm::ArrayRef<int64_t> axes,
                                                   unsigned rank);

/// Whether a result whose value the loader knows is cheap enough to become a Constant: the small
/// integer tensors of exporter-made shape arithmetic. Bigger results stay nodes, so no large
/// weights appear that the model did not have.
bool isCheapConstant(const Type &t);

/// Binds output \p i to \p v, or to a Constant holding v's value when v is cheap (see
/// isCheapConstant) and computed from Constants alone by a node that only rearranges its
/// operand's bytes (Reshape). Other nodes on Constants fold where a loader needs their value
/// (OpContext::constantInput).
llvm::Error setFoldedOutput(OpContext &ctx, unsigned i, NodeValue v);

/// \p v sliced to [start, start + count) on \p axis; v itself when that is all of it.
llvm::Expected<NodeValue> sliceAxis(OpContext &ctx, NodeValue v, unsigned axis, dim_t start,
                                    dim_t count, llvm::StringRef suffix);

/// Dims from int64 shape values, refusing negative ones.
llvm::Expected<DimsVec> dimsFromInts(OpContext &ctx, llvm::ArrayRef<int64_t> shape,
                                     llvm::StringRef what);

/// \p v as users write numbers ("0.5", "12", "nan").
std::string numberToString(double v);

} // namespace ember

#endif
