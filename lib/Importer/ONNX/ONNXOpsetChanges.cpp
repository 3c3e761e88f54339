// The operator versions of opsets 18 to 26 that only widened the element kinds an operator
// accepts (ONNX's docs/Changelog.md; ONNXOpVersions.inc lists every version, and marks these 0
// in its Signature column). Each is read by the loader of the version before, which refuses an
// element kind ember does not have. A version that changed what an operator computes, even one
// whose signature stayed the same (Pad-19's 'wrap', ScatterElements-18's 'max' and 'min',
// Resize-19's 'half_pixel_symmetric'), is registered by its family's loader instead, next to the
// code that reads it.
#include "OpContext.h"

namespace ember {

void registerWidenedVersions(OpRegistry &r) {
  struct Widened {
    const char *op;
    int64_t version;
  };
  static constexpr Widened kWidened[] = {
      // 18: optional inputs widened to tensors and sequences (OptionalGetElement's loader
      // already reads those).
      {"OptionalGetElement", 18},
      // 19: float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ).
      {"Constant", 19}, {"DequantizeLinear", 19}, {"Equal", 19}, {"Identity", 19},
      {"If", 19}, {"Loop", 19}, {"Reshape", 19}, {"Scan", 19}, {"Shape", 19}, {"Size", 19},
      // 20: float8, and bool for ReduceMax/ReduceMin.
      {"ConstantOfShape", 20}, {"IsInf", 20}, {"IsNaN", 20}, {"ReduceMax", 20},
      {"ReduceMin", 20},
      // 21: int4 and uint4.
      {"Cast", 21}, {"CastLike", 21}, {"Constant", 21}, {"ConstantOfShape", 21},
      {"Flatten", 21}, {"Identity", 21}, {"If", 21}, {"Loop", 21}, {"Pad", 21},
      {"QLinearMatMul", 21}, {"Reshape", 21}, {"Scan", 21}, {"Shape", 21}, {"Size", 21},
      {"Squeeze", 21}, {"Transpose", 21}, {"Unsqueeze", 21},
      // 22: bfloat16 for the float operators.
      {"Acos", 22}, {"Acosh", 22}, {"Asin", 22}, {"Asinh", 22}, {"Atan", 22}, {"Atanh", 22},
      {"AveragePool", 22}, {"Bernoulli", 22}, {"Conv", 22}, {"ConvTranspose", 22},
      {"Cos", 22}, {"Cosh", 22}, {"Det", 22}, {"Dropout", 22}, {"Elu", 22}, {"EyeLike", 22},
      {"GRU", 22}, {"GlobalAveragePool", 22}, {"GlobalLpPool", 22}, {"GlobalMaxPool", 22},
      {"GridSample", 22}, {"HardSigmoid", 22}, {"HardSwish", 22},
      {"InstanceNormalization", 22}, {"LSTM", 22}, {"LpNormalization", 22}, {"LpPool", 22},
      {"MaxPool", 22}, {"MaxRoiPool", 22}, {"MaxUnpool", 22}, {"Mish", 22}, {"Multinomial", 22},
      {"NegativeLogLikelihoodLoss", 22}, {"RNN", 22}, {"RandomNormal", 22},
      {"RandomNormalLike", 22}, {"RandomUniform", 22}, {"RandomUniformLike", 22},
      {"RoiAlign", 22}, {"Round", 22}, {"Selu", 22}, {"Sin", 22}, {"Sinh", 22},
      {"Softplus", 22}, {"Softsign", 22}, {"Tan", 22}, {"ThresholdedRelu", 22},
      // 23: float4 (E2M1).
      {"Cast", 23}, {"CastLike", 23}, {"Constant", 23}, {"ConstantOfShape", 23},
      {"Flatten", 23}, {"Identity", 23}, {"If", 23}, {"Loop", 23}, {"Pad", 23},
      {"Reshape", 23}, {"Scan", 23}, {"Shape", 23}, {"Size", 23}, {"Squeeze", 23},
      {"Transpose", 23}, {"Unsqueeze", 23},
      // 24: float8 E8M0, and bfloat16/float16 for TopK and SplitToSequence.
      {"Constant", 24}, {"ConstantOfShape", 24}, {"Flatten", 24}, {"Identity", 24},
      {"If", 24}, {"Loop", 24}, {"Pad", 24}, {"Reshape", 24}, {"Scan", 24}, {"Shape", 24},
      {"Size", 24}, {"SplitToSequence", 24}, {"Squeeze", 24}, {"TopK", 24},
      {"Transpose", 24}, {"Unsqueeze", 24},
      // 25: int2 and uint2.
      {"Cast", 25}, {"CastLike", 25}, {"Constant", 25}, {"ConstantOfShape", 25},
      {"Flatten", 25}, {"Identity", 25}, {"If", 25}, {"Loop", 25}, {"Pad", 25},
      {"Reshape", 25}, {"Scan", 25}, {"Shape", 25}, {"Size", 25}, {"Squeeze", 25},
      {"Transpose", 25}, {"Unsqueeze", 25},
  };
  for (const Widened &w : kWidened)
    if (r.find(w.op, w.version - 1))
      r.widen(w.op, w.version);
}

} // namespace ember
