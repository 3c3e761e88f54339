// The Caffe2 importer on small hand-written nets: how a model's files are found, how inputs get
// their types, in-place operators, and the errors a broken model gets. The operators' numbers
// are checked by the cases in tests/models/caffe2 (ModelCasesTest).
#include "TestUtils.h"

#include "ember/Importer/ModelLoader.h"

using namespace ember;
using namespace ember::test;

namespace {

const char *kInit = R"(
name: "init"
op { output: "w" type: "GivenTensorFill"
     arg { name: "shape" ints: 2 ints: 3 } arg { name: "values" floats: [1, 2, 3, 4, 5, 6] } }
op { output: "b" type: "GivenTensorFill"
     arg { name: "shape" ints: 2 } arg { name: "values" floats: [0.5, -0.5] } }
)";

const char *kPredict = R"(
name: "predict"
external_input: "data"
external_input: "w"
external_input: "b"
external_input: "unused_leftover"
external_output: "y"
op { input: "data" input: "w" input: "b" output: "y" name: "fc" type: "FC" }
op { input: "y" output: "y" name: "relu" type: "Relu" }
)";

ImportOptions withDataType() {
  ImportOptions opts;
  opts.declaredInputs["data"] = Type(ElemKind::Float32, {4, 3});
  return opts;
}

TEST(Caffe2Importer, LoadsTwoFilesOrADirectoryTextOrBinary) {
  TempDir dir;
  std::string predict = dir.write("predict_net.pbtxt", kPredict);
  std::string init = dir.write("init_net.pbtxt", kInit);
  ASSERT_OK_AND_ASSIGN(auto m, loadModelFiles({predict, init}, withDataType()));
  ASSERT_OK_AND_ASSIGN(auto fromDir, loadModel(dir.path(), withDataType()));
  for (Module *mod : {m.get(), fromDir.get()}) {
    // 'unused_leftover' is read by nothing and ignored; 'y' is rebound in place by Relu.
    ASSERT_EQ(mod->getPlaceholders().size(), 2u);
    EXPECT_EQ(mod->getPlaceholder("data")->getType(), Type(ElemKind::Float32, {4, 3}));
    EXPECT_EQ(mod->getPlaceholder("y")->getType(), Type(ElemKind::Float32, {4, 2}));
    bool hasRelu = false;
    for (const auto &n : mod->getFunction(kMainFunctionName)->getNodes())
      hasRelu |= n->getKind() == NodeKind::Relu;
    EXPECT_TRUE(hasRelu);
  }
}

TEST(Caffe2Importer, InputTypeFromTheInputFile) {
  TempDir dir;
  dir.write("predict_net.pbtxt", kPredict);
  dir.write("init_net.pbtxt", kInit);
  ImportOptions opts;
  opts.inputShapes["data"] = {{5, 3}, "data.npy", ElemKind::Float32};
  ASSERT_OK_AND_ASSIGN(auto m, loadModel(dir.path(), opts));
  EXPECT_EQ(m->getPlaceholder("y")->getType(), Type(ElemKind::Float32, {5, 2}));
}

TEST(Caffe2Importer, InputWithoutTypeNamesTheFlag) {
  TempDir dir;
  dir.write("predict_net.pbtxt", kPredict);
  dir.write("init_net.pbtxt", kInit);
  std::string err = errorOf(loadModel(dir.path()));
  EXPECT_NE(err.find("input 'data': Caffe2 nets do not declare input types: give "
                     "-model-input=data,float,[d0,d1,...]"),
            std::string::npos)
      << err;
  ImportOptions wrongName = withDataType();
  wrongName.declaredInputs["date"] = Type(ElemKind::Float32, {1});
  err = errorOf(loadModel(dir.path(), wrongName));
  EXPECT_NE(err.find("-model-input: the net has no input named 'date' (its inputs: data)"),
            std::string::npos)
      << err;
}

TEST(Caffe2Importer, ListsEveryUnsupportedOperatorAtOnce) {
  TempDir dir;
  std::string predict = dir.write("predict_net.pbtxt", R"(
    external_input: "data" external_output: "y"
    op { input: "data" output: "t" name: "a" type: "FooOp" }
    op { input: "t" output: "u" type: "Relu" }
    op { input: "u" output: "y" type: "BarOp" })");
  dir.write("init_net.pbtxt", R"(op { output: "k" type: "BazFill" })");
  std::string err = errorOf(loadModel(dir.path(), withDataType()));
  EXPECT_NE(err.find(predict + ": unsupported operators (3):"), std::string::npos) << err;
  EXPECT_NE(err.find("operator 'k' (BazFill) in the init_net"), std::string::npos) << err;
  EXPECT_NE(err.find("operator 'a' (FooOp)"), std::string::npos) << err;
  EXPECT_NE(err.find("operator 'y' (BarOp)"), std::string::npos) << err;
}

TEST(Caffe2Importer, BlobNeverProducedNamesItsReader) {
  TempDir dir;
  std::string predict = dir.write("predict_net.pbtxt", R"(
    external_input: "data" external_output: "y"
    op { input: "data" input: "w_missing" input: "b" output: "y" name: "fc" type: "FC" })");
  dir.write("init_net.pbtxt", kInit);
  std::string err = errorOf(loadModel(dir.path(), withDataType()));
  EXPECT_NE(err.find(predict + ": operator 'fc' (FC): input 1 ('w_missing') is produced by "
                               "neither the init_net, an earlier operator, nor an external input"),
            std::string::npos)
      << err;
}

TEST(Caffe2Importer, FillValuesThatDisagreeWithShape) {
  TempDir dir;
  dir.write("predict_net.pbtxt", kPredict);
  std::string init = dir.write("init_net.pbtxt", R"(
    op { output: "w" type: "GivenTensorFill"
         arg { name: "shape" ints: 2 ints: 3 } arg { name: "values" floats: [1, 2, 3] } })");
  std::string err = errorOf(loadModel(dir.path(), withDataType()));
  EXPECT_NE(err.find(init + ": operator 'w' (GivenTensorFill): argument 'values' holds 3 "
                            "values, but `shape` [2 x 3] needs 6"),
            std::string::npos)
      << err;
}

TEST(Caffe2Importer, PredictNetWhereInitNetIsExpected) {
  TempDir dir;
  std::string predict = dir.write("predict_net.pbtxt", kPredict);
  std::string init = dir.write("init_net.pbtxt", kInit);
  std::string err = errorOf(loadModelFiles({init, predict}, withDataType()));
  EXPECT_NE(err.find(predict + ": operator 'fc' (FC) reads blob 'data': this is a predict_net, "
                               "not an init_net (give the predict_net first, then the init_net)"),
            std::string::npos)
      << err;
  err = errorOf(loadModel(predict));
  EXPECT_NE(err.find("a Caffe2 model needs both nets"), std::string::npos) << err;
}

TEST(Caffe2Importer, ArgumentOfWrongFieldIsAnError) {
  TempDir dir;
  std::string predict = dir.write("predict_net.pbtxt", R"(
    external_input: "data" external_output: "y"
    op { input: "data" output: "y" name: "sm" type: "Softmax" arg { name: "axis" f: 1.5 } })");
  dir.write("init_net.pbtxt", "");
  std::string err = errorOf(loadModel(dir.path(), withDataType()));
  EXPECT_NE(err.find(predict + ": operator 'sm' (Softmax): argument 'axis' must be an integer"),
            std::string::npos)
      << err;
}

TEST(Caffe2Importer, TrainingModeOperatorsAreRefused) {
  TempDir dir;
  dir.write("predict_net.pbtxt", R"(
    external_input: "data" external_output: "y"
    op { input: "data" output: "y" output: "mask" name: "drop" type: "Dropout" })");
  dir.write("init_net.pbtxt", "");
  std::string err = errorOf(loadModel(dir.path(), withDataType()));
  EXPECT_NE(err.find("operator 'drop' (Dropout): Dropout in training mode (is_test = 0)"),
            std::string::npos)
      << err;
}

TEST(Caffe2Importer, MalformedNetsAreRefused) {
  TempDir dir;
  std::string predict = dir.write("predict_net.pbtxt", "op { bogus_field: 1 }");
  dir.write("init_net.pbtxt", "");
  std::string err = errorOf(loadModel(dir.path()));
  EXPECT_NE(err.find(predict + ": not a valid Caffe2 NetDef in text format: line 1"),
            std::string::npos)
      << err;
  TempDir both;
  both.write("predict_net.pb", "");
  both.write("predict_net.pbtxt", "");
  err = errorOf(loadModel(both.path()));
  EXPECT_NE(err.find("holds both predict_net.pb and predict_net.pbtxt"), std::string::npos)
      << err;
}

} // namespace
