#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

#include <cstring>

using namespace llvm;

namespace ember {
namespace opencl {

int64_t floatBits(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, 4);
  return int64_t(uint32_t(bits));
}

int64_t placeOf(IRValue *v) {
  ValueRoot r = rootOf(v);
  return int64_t(regionOf(v)) << 48 | int64_t(r.root->offset + r.offset);
}

StringRef kindSuffix(ElemKind k) {
  switch (k) {
  case ElemKind::Float32: return "f32";
  case ElemKind::Float64: return "f64";
  case ElemKind::Float16: return "f16";
  case ElemKind::BFloat16: return "bf16";
  case ElemKind::Int8:
  case ElemKind::QInt8: return "i8";
  case ElemKind::UInt8:
  case ElemKind::QUInt8: return "u8";
  case ElemKind::Int16: return "i16";
  case ElemKind::UInt16: return "u16";
  case ElemKind::Int32: return "i32";
  case ElemKind::UInt32: return "u32";
  case ElemKind::Int64: return "i64";
  case ElemKind::UInt64: return "u64";
  case ElemKind::Bool: return "bool";
  }
  return "";
}

std::vector<int64_t> stridesOf(ArrayRef<dim_t> dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    s[i - 1] = s[i] * int64_t(dims[i]);
  return s;
}

Expected<bool> LaunchBuilder::add(const Instruction &I, StringRef kernel, uint64_t count,
                                  ArrayRef<int64_t> params, size_t group,
                                  StringRef failure) {
  if (count == 0)
    return true;
  plan_.launches.push_back({&I, kernel.str(), count, plan_.params.size(), group, failure.str()});
  plan_.params.push_back(int64_t(count));
  plan_.params.insert(plan_.params.end(), params.begin(), params.end());
  return true;
}

Expected<bool> LaunchBuilder::copyND(const Instruction &I, int64_t y, int64_t x, int64_t fill,
                                     size_t elemBytes, ArrayRef<std::array<int64_t, 6>> dims) {
  uint64_t count = 1;
  std::vector<int64_t> p = {y, x, fill, int64_t(dims.size())};
  for (const auto &d : dims) {
    count *= uint64_t(d[0]);
    p.insert(p.end(), d.begin(), d.end());
  }
  return add(I, "copy_nd_" + std::to_string(elemBytes), count, p);
}

namespace {

/// The families in turn: the first that knows the kind plans it.
Error planInstruction(LaunchBuilder &b, const Instruction &I) {
  if (isMemoryMarker(I.getKind()))
    return Error::success();
  for (auto plan : {planGemm, planElementwise, planDataMovement, planNN, planNormalization, planReduce,
                    planQuantized, planIndexed, planSelection, planRecurrent, planLoss}) {
    EMBER_ASSIGN_OR_RETURN(bool planned, plan(b, I));
    if (planned)
      return Error::success();
  }
  return makeError("no OpenCL kernel");
}

} // namespace

Expected<LaunchPlan> planLaunches(const IRFunction &IR) {
  LaunchPlan plan;
  LaunchBuilder b(plan);
  for (const auto &I : IR.getInstrs())
    if (Error e = planInstruction(b, *I))
      return withContext(std::move(e),
                         "instruction '" + I->getName() + "' (" + I->getKindName() + ")");
  return std::move(plan);
}

uint64_t scratchBytes(const Instruction &I) { return gemmScratchBytes(I); }

bool hasKernel(const Node &n) {
  if (n.getKind() == NodeKind::Placeholder || n.getKind() == NodeKind::Constant)
    return true;
  for (auto supports : {supportsElementwise, supportsDataMovement, supportsNN,
                        supportsNormalization, supportsReduce, supportsQuantized, supportsIndexed,
                        supportsSelection, supportsRecurrent, supportsLoss})
    if (std::optional<bool> yes = supports(n))
      return *yes;
  return false;
}

} // namespace opencl
} // namespace ember
