// The conditions Caffe2's operator sources enforce (CAFFE_ENFORCE and the like), each refused
// at load time with the source's reason, naming the operator. Part of Caffe2ImporterTest.
#include "TestUtils.h"

#include "ember/Importer/ModelLoader.h"

using namespace ember;
using namespace ember::test;

namespace {

struct Refusal {
  const char *what;   ///< the condition and its source
  const char *ops;    ///< the predict_net's operators; they read "x" (and "x4", "v", "i", "w")
                      ///< and write "y"
  const char *reason; ///< expected in the error, after "operator 'y' (Type): "
};

const Refusal kRefusals[] = {
    {"pow_op.h: axis without broadcast",
     R"(op { input: "x" input: "x" output: "y" type: "Pow" arg { name: "axis" i: 1 } })",
     "(Pow): Do not specify axis or axis_str if broadcast is not enabled."},
    {"pow_op.h: shapes differ without broadcast",
     R"(op { input: "x" input: "v" output: "y" type: "Pow" })",
     "(Pow): Dimension mismatch - did you forget to set broadcast=1?"},
    {"pow_op.h: neither exponent nor a second input",
     R"(op { input: "x" output: "y" type: "Pow" })",
     "(Pow): Only a tensor with an argument or two input tensors are supported"},
    {"mod_op.h: divisor 0", R"(op { input: "i" output: "y" type: "Mod" })",
     "(Mod): divisor must not be 0"},
    {"prelu_op.cc: one slope per channel",
     R"(op { input: "x" input: "v" output: "y" type: "PRelu" })",
     "(PRelu): C == W.size() fails: 3 channels in X float32<2 x 3 x 4>, 4 slopes"},
    {"elementwise_linear_op.cc: a of D",
     R"(op { input: "x" input: "v" input: "v" output: "y" type: "ElementwiseLinear" })",
     "(ElementwiseLinear): a float32<4> must be a vector of D = 12"},
    {"minmax_ops.h: inputs of one shape",
     R"(op { input: "x" input: "v" output: "y" type: "Max" })",
     "(Max): Input #1, input dimension: float32<4> should match output dimension: "
     "float32<2 x 3 x 4>"},
    {"mean_op.h: float only", R"(op { input: "i" input: "i" output: "y" type: "Mean" })",
     "(Mean): Mean operator only supports 32-bit float"},
    {"order_switch_ops.cc: at least 3 dims",
     R"(op { input: "v" output: "y" type: "NCHW2NHWC" })",
     "(NCHW2NHWC): Input for NCHW2NHWC must be >= 3 dimensional"},
    {"shape_op.h: axis in range",
     R"(op { input: "x" output: "y" type: "Shape" arg { name: "axes" ints: 3 } })",
     "(Shape): Axis out of range: 3"},
    {"shape_op.h: axis non-negative",
     R"(op { input: "x" output: "y" type: "Shape" arg { name: "axes" ints: -1 } })",
     "(Shape): Each axis should be non-negative"},
    {"channel_shuffle_op.cc: C % G == 0",
     R"(op { input: "x" output: "y" type: "ChannelShuffle" arg { name: "group" i: 2 } })",
     "(ChannelShuffle): C % G == 0 fails: 3 channels, group 2"},
    {"resize_op.h: positive scales",
     R"(op { input: "x4" output: "y" type: "ResizeNearest"
             arg { name: "height_scale" f: 0 } })",
     "(ResizeNearest): width_scale > 0 and height_scale > 0 fail"},
    {"batch_gather_ops.h: DATA at least 2-D",
     R"(op { input: "v" input: "i" output: "y" type: "BatchGather" })",
     "(BatchGather): DATA should be at least 2-D"},
    {"free_op.cc: one-to-one in place",
     R"(op { input: "x" output: "x" type: "Relu" } op { input: "x" output: "y" type: "Free" })",
     "(Free): the input and output blobs should be one-to-one inplace"},
    {"elementwise_ops.h: And on bool only",
     R"(op { input: "x" input: "x" output: "y" type: "And" })",
     "(And): input 0 must be bool, got float32<2 x 3 x 4>"},
    {"reduce_front_back_sum_mean_ops.h: num_reduce_dim in [0, N]",
     R"(op { input: "x" output: "y" type: "ReduceBackSum" arg { name: "num_reduce_dim" i: 4 } })",
     "(ReduceBackSum): For N-dim input tensor, support num_reduce_dims in range [0, N]"},
    {"lpnorm_op.cc: p of 1 or 2",
     R"(op { input: "x" output: "y" type: "LpNorm" arg { name: "p" i: 3 } })",
     "(LpNorm): p 3 must be 1 or 2"},
    {"utility_ops.h: ScatterAssign in place",
     R"(op { input: "x" input: "i" input: "x" output: "y" type: "ScatterAssign" })",
     "(ScatterAssign): In place operation is required"},
    {"elementwise_ops_utils.cc: legacy broadcast dims",
     R"(op { input: "x" input: "v" output: "y" type: "Add" arg { name: "broadcast" i: 1 }
             arg { name: "axis" i: 1 } })",
     "(Add): B float32<4> does not match A float32<2 x 3 x 4> from axis 1"},
    {"layer_norm_op.h: input dim >= 2", R"(op { input: "v" output: "y" type: "LayerNorm" })",
     "(LayerNorm): LayerNorm requires input dim >= 2"},
    {"layer_norm_op.h: gamma and beta with elementwise_affine",
     R"(op { input: "x" output: "y" type: "LayerNorm" arg { name: "elementwise_affine" i: 1 } })",
     "(LayerNorm): InputSize() == 3 fails with elementwise_affine: 1 inputs"},
    {"layer_norm_op.h: gamma of N",
     R"(op { input: "x" input: "v" input: "v" output: "y" type: "LayerNorm"
             arg { name: "elementwise_affine" i: 1 } })",
     "(LayerNorm): gamma float32<4> must hold N = 12 floats"},
    {"rms_norm_op.cc: input dim >= 2",
     R"(op { input: "v" input: "v" input: "v" output: "y" type: "RMSNorm" })",
     "(RMSNorm): RMSNorm requires input dim >= 2"},
    {"rms_norm_op.cc: gamma of N",
     R"(op { input: "x" input: "v" input: "v" output: "y" type: "RMSNorm" })",
     "(RMSNorm): gamma float32<4> must hold N = 12 floats"},
    {"batch_box_cox_op.cc: lambda1 of D",
     R"(op { input: "x" input: "v" input: "v" output: "y" type: "BatchBoxCox" })",
     "(BatchBoxCox): lambda1.numel() == D fails: float32<4>, D = 12"},
    {"top_k.cc: axis in range",
     R"(op { input: "x" output: "y" output: "j" type: "TopK" arg { name: "k" i: 1 }
             arg { name: "axis" i: 3 } })",
     "(TopK): axis_ >= 0 and axis_ < input_dims.size() fail: axis 3"},
    {"bucketize_op.h: sorted boundaries",
     R"(op { input: "x" output: "y" type: "Bucketize" arg { name: "boundaries" floats: 1
             floats: 0 } })",
     "(Bucketize): The boundaries need to be monotonically increasing"},
    {"one_hot_ops.cc: a length per column",
     R"(op { output: "l" type: "GivenTensorIntFill" arg { name: "shape" ints: 4 }
             arg { name: "values" ints: 1 ints: 1 ints: 1 ints: 1 } }
        op { input: "x" input: "l" input: "v" output: "y" type: "BatchOneHot" })",
     "(BatchOneHot): lens.numel() == D fails: LENS int32<4>, D = 12"},
    {"one_hot_ops.cc: vals of sum(lens)",
     R"(op { output: "l" type: "GivenTensorIntFill" arg { name: "shape" ints: 2 }
             arg { name: "values" ints: 2 ints: 1 } }
        op { input: "w" input: "l" input: "v" output: "y" type: "BatchOneHot" })",
     "(BatchOneHot): vals.numel() == sum(lens) fails: VALS float32<4>, 3 values"},
    {"sparse_to_dense_op.h: exactly 2 inputs with output_first_dim",
     R"(op { input: "i" input: "v" input: "v" output: "y" type: "SparseToDense"
             arg { name: "output_first_dim" i: 5 } })",
     "(SparseToDense): InputSize() == 2 fails with output_first_dim: 3 inputs"},
    {"sparse_to_dense_op.h: an index per row of VALUES",
     R"(op { input: "i" input: "w" output: "y" type: "SparseToDense"
             arg { name: "output_first_dim" i: 5 } })",
     "(SparseToDense): sparse_indices.numel() == sparse_values.size(0) fails"},
    {"batch_sparse_to_dense_op.cc: indices and values of one size",
     R"(op { input: "x" input: "v" input: "w" output: "y" type: "BatchSparseToDense" })",
     "(BatchSparseToDense): indices.numel() == values.numel() fails"},
    {"batch_sparse_to_dense_op.cc: dense_last_dim >= 1",
     R"(op { input: "v" input: "v" input: "v" output: "y" type: "BatchSparseToDense" })",
     "(BatchSparseToDense): The last dim of dense must be >= 1"},
    {"distance_op.cc: DotProduct inputs of one shape",
     R"(op { input: "x" input: "v" output: "y" type: "DotProduct" })",
     "(DotProduct): the inputs must have one shape"},
    {"cross_entropy_op.cc: logits and targets of one shape",
     R"(op { input: "x" input: "v" output: "y" type: "SigmoidCrossEntropyWithLogits" })",
     "(SigmoidCrossEntropyWithLogits): the inputs must have one shape"},
    {"cross_entropy_op.h: not both log_D_trick and unjoined_lr_loss",
     R"(op { input: "x" input: "x" output: "y" type: "SigmoidCrossEntropyWithLogits"
             arg { name: "log_D_trick" i: 1 } arg { name: "unjoined_lr_loss" i: 1 } })",
     "(SigmoidCrossEntropyWithLogits): log_D_trick_ and unjoined_lr_loss_ cannot be set as "
     "True simultaneously"},
    {"lengths_reducer_ops.h: INDICES a vector",
     R"(op { input: "w" input: "w" input: "i" output: "y" type: "SparseLengthsSum" })",
     "(SparseLengthsSum): INDICES must be a vector"},
    {"lengths_reducer_ops.h: LENGTHS a vector",
     R"(op { input: "w" input: "i" input: "w" output: "y" type: "SparseLengthsMean" })",
     "(SparseLengthsMean): LENGTHS must be a vector"},
    {"lengths_reducer_ops.h: WEIGHT a vector",
     R"(op { input: "w" input: "w" input: "i" input: "i" output: "y"
             type: "SparseLengthsWeightedSum" })",
     "(SparseLengthsWeightedSum): WEIGHT must be a vector"},
    {"lengths_reducer_ops.h: a weight per index",
     R"(op { output: "u" type: "GivenTensorFill" arg { name: "shape" ints: 3 }
             arg { name: "values" floats: 1 floats: 2 floats: 3 } }
        op { input: "w" input: "u" input: "i" input: "i" output: "y"
             type: "SparseLengthsWeightedSum" })",
     "(SparseLengthsWeightedSum): Weight should have the same length as indices."},
    {"lengths_reducer_fused_8bit_rowwise_ops.h: INDICES a vector",
     R"(op { input: "w" input: "w" input: "i" output: "y"
             type: "SparseLengthsSumFused8BitRowwise" })",
     "(SparseLengthsSumFused8BitRowwise): INDICES must be a vector"},
    {"lengths_reducer_fused_8bit_rowwise_ops.h: WEIGHTS a vector",
     R"(op { input: "w" input: "w" input: "i" input: "i" output: "y"
             type: "SparseLengthsWeightedSumFused8BitRowwise" })",
     "(SparseLengthsWeightedSumFused8BitRowwise): WEIGHTS must be a vector"},
    {"lengths_reducer_fused_8bit_rowwise_ops.h: a weight per index",
     R"(op { output: "u" type: "GivenTensorFill" arg { name: "shape" ints: 3 }
             arg { name: "values" floats: 1 floats: 2 floats: 3 } }
        op { input: "w" input: "u" input: "i" input: "i" output: "y"
             type: "SparseLengthsWeightedSumFused8BitRowwise" })",
     "(SparseLengthsWeightedSumFused8BitRowwise): WEIGHTS should have the same length as "
     "INDICES."},
    {"lengths_reducer_fused_8bit_rowwise_ops.h: DATA more than 8 columns",
     R"(op { output: "d" type: "GivenTensorByteStringToUInt8Fill"
             arg { name: "shape" ints: 1 ints: 8 } arg { name: "values" strings: "abcdefgh" } }
        op { input: "d" input: "i" input: "i" output: "y"
             type: "SparseLengthsMeanFused8BitRowwise" })",
     "(SparseLengthsMeanFused8BitRowwise): DATA must have more than 8 columns"},
    {"lengths_reducer_rowwise_8bit_ops.h: scale_bias a matrix",
     R"(op { input: "w" input: "i" input: "i" input: "v" output: "y"
             type: "SparseLengthsSum8BitsRowwise" })",
     "(SparseLengthsSum8BitsRowwise): scale_bias has to be matrix"},
    {"lengths_reducer_rowwise_8bit_ops.h: scale_bias a row per DATA row",
     R"(op { output: "s" type: "GivenTensorFill" arg { name: "shape" ints: 2 ints: 2 }
             arg { name: "values" floats: 1 floats: 2 floats: 3 floats: 4 } }
        op { input: "w" input: "i" input: "i" input: "s" output: "y"
             type: "SparseLengthsMean8BitsRowwise" })",
     "(SparseLengthsMean8BitsRowwise): scale_bias must have the same first dim as data"},
    {"lengths_reducer_rowwise_8bit_ops.h: scale_bias of 2 columns",
     R"(op { output: "s" type: "GivenTensorFill" arg { name: "shape" ints: 3 ints: 1 }
             arg { name: "values" floats: 1 floats: 2 floats: 3 } }
        op { input: "w" input: "v" input: "i" input: "i" input: "s" output: "y"
             type: "SparseLengthsWeightedSum8BitsRowwise" })",
     "(SparseLengthsWeightedSum8BitsRowwise): the second dim of scale_bias has to be equal to 2"},
    {"lengths_reducer_fused_nbit_rowwise_ops.h: DATA more than 4 columns",
     R"(op { output: "d" type: "GivenTensorByteStringToUInt8Fill"
             arg { name: "shape" ints: 1 ints: 4 } arg { name: "values" strings: "abcd" } }
        op { input: "d" input: "i" input: "i" output: "y"
             type: "SparseLengthsSumFused4BitRowwise" })",
     "(SparseLengthsSumFused4BitRowwise): DATA must have more than 4 columns"},
    {"segment_reduction_op.h: LENGTHS a vector",
     R"(op { input: "x" input: "w" output: "y" type: "LengthsSum" })",
     "(LengthsSum): LENGTHS must be a vector"},
    {"lengths_reducer_ops.h: LENGTHS read as int",
     R"(op { input: "w" input: "i" input: "v" output: "y" type: "SparseLengthsSum" })",
     "(SparseLengthsSum): LENGTHS must be int32 (Caffe2 reads them as int)"},
};

TEST(Caffe2OperatorRefusals, EachEnforcedConditionIsRefusedWithItsReason) {
  for (const Refusal &r : kRefusals) {
    SCOPED_TRACE(r.what);
    TempDir dir;
    std::string predict =
        dir.write("predict_net.pbtxt", std::string(r.ops) + " external_output: \"y\"");
    dir.write("init_net.pbtxt", "");
    ImportOptions opts;
    opts.declaredInputs["x"] = Type(ElemKind::Float32, {2, 3, 4});
    opts.declaredInputs["x4"] = Type(ElemKind::Float32, {1, 3, 4, 4});
    opts.declaredInputs["v"] = Type(ElemKind::Float32, {4});
    opts.declaredInputs["i"] = Type(ElemKind::Int32, {4});
    opts.declaredInputs["w"] = Type(ElemKind::Float32, {3, 2});
    // Only the inputs a net reads may be declared.
    for (const char *name : {"x", "x4", "v", "i", "w"})
      if (!llvm::StringRef(r.ops).contains("input: \"" + std::string(name) + "\""))
        opts.declaredInputs.erase(name);
    std::string err = errorOf(loadModel(dir.path(), opts));
    EXPECT_NE(err.find(predict + ": operator 'y' "), std::string::npos) << err;
    EXPECT_NE(err.find(r.reason), std::string::npos) << err;
  }
}

} // namespace
