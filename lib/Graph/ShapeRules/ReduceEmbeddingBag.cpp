// Shape rule: EmbeddingBag (ember/Semantics/EmbeddingBag.h states what it computes).
#include "Common.h"

using namespace llvm;

namespace ember {

using namespace shape;

Expected<TypeList> inferTypesEmbeddingBag(ArrayRef<Type> in, const AttrList &attrs) {
  namespace Op = ops::EmbeddingBag;
  if (in.size() > 4)
    return makeError("EmbeddingBag takes 3 or 4 operands, got " + Twine(in.size()));
  const Type &data = in[Op::Data], &indices = in[Op::Indices], &lengths = in[Op::Lengths];
  const std::string &mode = attrs.get<AttrKind::Mode>();
  const std::string &reduction = attrs.get<AttrKind::Reduction>();
  if (reduction != "sum" && reduction != "mean")
    return makeError("unknown EmbeddingBag reduction '" + reduction + "' (sum or mean)");
  if (indices.rank() != 1 || (indices.kind != ElemKind::Int32 && indices.kind != ElemKind::Int64))
    return makeError("indices must be an int32 or int64 vector, got " + indices.str());
  if (lengths.rank() != 1 || lengths.kind != ElemKind::Int32)
    return makeError("lengths must be an int32 vector, got " + lengths.str());
  if (in.size() == 4) {
    const Type &w = in[Op::Weights];
    if (w.rank() != 1 || w.kind != ElemKind::Float32 || w.dims[0] != indices.dims[0])
      return makeError("weights must be float32<" + Twine(indices.dims[0]) + ">, got " +
                       w.str());
  }
  DimsVec dims;
  dims.push_back(lengths.dims[0]);
  if (mode == "float") {
    if (data.rank() < 1 || data.kind != ElemKind::Float32)
      return makeError("data must be float32 of rank 1 or more, got " + data.str());
    dims.append(data.dims.begin() + 1, data.dims.end());
  } else if (mode == "fused8") {
    if (data.rank() != 2 || data.kind != ElemKind::UInt8 || data.dims[1] <= 8)
      return makeError("fused8 data must be uint8 [rows, cols + 8] with cols > 0, got " +
                       data.str());
    dims.push_back(data.dims[1] - 8);
  } else if (mode == "fused4") {
    if (data.rank() != 2 || data.kind != ElemKind::UInt8 || data.dims[1] <= 4)
      return makeError("fused4 data must be uint8 [rows, cols / 2 + 4] with cols > 0, got " +
                       data.str());
    dims.push_back((data.dims[1] - 4) * 2);
  } else {
    return makeError("unknown EmbeddingBag mode '" + mode + "' (float, fused8 or fused4)");
  }
  return TypeList{Type(ElemKind::Float32, dims)};
}

} // namespace ember
