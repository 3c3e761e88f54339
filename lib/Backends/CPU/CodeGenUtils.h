// Helpers shared by the per-family codegen files (CodeGen<Family>.cpp).
#ifndef EMBER_LIB_BACKENDS_CPU_CODEGENUTILS_H
#define EMBER_LIB_BACKENDS_CPU_CODEGENUTILS_H

#include "CodeGen.h"

#include "ember/Backends/KernelKinds.h"
#include "ember/Base/Dims.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace ember {
namespace cpu {

inline int64_t numElements(const IRValue *v) { return int64_t(v->getType().numElements()); }

/// ember::dimsProduct as the int64 the kernels' parameters and the codegen's arithmetic take.
inline int64_t dimsProduct(llvm::ArrayRef<dim_t> dims, size_t begin, size_t end) {
  return dimsProductAsInt64(dims, begin, end);
}

/// \p base + "_" + the suffix of \p k: the name of a kernel instantiated per element kind.
inline std::string kernelFor(llvm::StringRef base, ElemKind k) {
  return (base + "_" + kindSuffix(k)).str();
}

/// Row-major strides of \p dims, in elements.
inline llvm::SmallVector<int64_t, 6> rowMajorStrides(llvm::ArrayRef<dim_t> dims) {
  llvm::SmallVector<int64_t, 6> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    s[i - 1] = s[i] * int64_t(dims[i]);
  return s;
}

/// The batches of a (numpy-broadcast) batched matrix product [B.., M, K] x [B.., K, N] ->
/// result dims \p r: the element offset of each result matrix's left and right operand (a
/// batch dim of size 1 stays put). Never empty: a product with no batch dims has one.
struct MatMulBatches {
  int64_t count = 1;
  std::vector<int64_t> lhs, rhs;
};
inline MatMulBatches matmulBatches(llvm::ArrayRef<dim_t> a, llvm::ArrayRef<dim_t> b,
                                   llvm::ArrayRef<dim_t> r) {
  size_t rank = r.size(), batchRank = rank - 2;
  int64_t M = int64_t(a[rank - 2]), K = int64_t(a[rank - 1]), N = int64_t(b[rank - 1]);
  llvm::SmallVector<int64_t, 8> aStrides(batchRank), bStrides(batchRank);
  int64_t aStride = M * K, bStride = K * N;
  for (size_t d = batchRank; d-- > 0;) {
    aStrides[d] = a[d] == 1 ? 0 : aStride;
    bStrides[d] = b[d] == 1 ? 0 : bStride;
    aStride *= int64_t(a[d]);
    bStride *= int64_t(b[d]);
  }
  MatMulBatches m;
  m.count = dimsProduct(r, 0, batchRank);
  for (int64_t batch = 0; batch < m.count; ++batch) {
    int64_t rest = batch, ao = 0, bo = 0;
    for (size_t d = batchRank; d-- > 0;) {
      int64_t idx = rest % int64_t(r[d]);
      rest /= int64_t(r[d]);
      ao += idx * aStrides[d];
      bo += idx * bStrides[d];
    }
    m.lhs.push_back(ao);
    m.rhs.push_back(bo);
  }
  if (m.lhs.empty()) // no batch at all (an empty batch dim): keep the arrays non-empty
    m.lhs.push_back(0), m.rhs.push_back(0);
  return m;
}

/// Folds the batches of \p m into the rows of one product when every batch meets the same right
/// operand and the left operands lie one after another (a Linear layer over a sequence,
/// [S, 1, K] x [1, K, N]): one product of count * M rows. The results lie one after another
/// too, and each element sums the same products in the same order. Run as batches, each batch
/// of M = 1 was a matrix-vector product reading all of the right operand (BERT-mini's QKV
/// projection: 128 passes over its weights, 58 GFLOP/s).
inline void foldBatchesIntoRows(MatMulBatches &m, int64_t &M, int64_t K) {
  if (m.count <= 1)
    return;
  for (int64_t b = 0; b < m.count; ++b)
    if (m.rhs[size_t(b)] != m.rhs[0] || m.lhs[size_t(b)] != b * M * K)
      return;
  M *= m.count;
  m.count = 1;
  m.lhs.resize(1);
  m.rhs.resize(1);
}

/// Whether every result and operand of \p n is float32 (the float kernels' contract).
inline bool allFloat32(const Node &n) {
  for (const Type &t : n.getResultTypes())
    if (t.kind != ElemKind::Float32)
      return false;
  for (const NodeValue &v : n.getOperands())
    if (v.getType().kind != ElemKind::Float32)
      return false;
  return true;
}

} // namespace cpu
} // namespace ember

#endif
