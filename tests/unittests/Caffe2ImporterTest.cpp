// The Caffe2 importer on small hand-written nets: how a model's files are found (a zoo folder
// included), which blobs are inputs and how they get their types, in-place operators, and the
// errors a broken model gets (Caffe2OperatorRefusalsTest.cpp: those an operator's source
// enforces). The operators' numbers
// are checked by the cases in tests/models/caffe2 (ModelCasesTest).
#include "TestUtils.h"

#include "ember/Importer/Caffe2Folder.h"
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

TEST(Caffe2Importer, BlobsReadBeforeWrittenAreInputsListedOrNot) {
  // 'w_free' is read, filled by nothing and listed nowhere: an input all the same, typed like
  // any other (its error names it), after the listed ones.
  TempDir dir;
  dir.write("predict_net.pbtxt", R"(
    external_input: "data" external_output: "y"
    op { input: "data" input: "w_free" input: "b" output: "y" name: "fc" type: "FC" })");
  dir.write("init_net.pbtxt", kInit);
  std::string err = errorOf(loadModel(dir.path(), withDataType()));
  EXPECT_NE(err.find("input 'w_free': Caffe2 nets do not declare input types: give "
                     "-model-input=w_free,float,[d0,d1,...]"),
            std::string::npos)
      << err;
  ImportOptions opts = withDataType();
  opts.declaredInputs["w_free"] = Type(ElemKind::Float32, {2, 3});
  ASSERT_OK_AND_ASSIGN(auto m, loadModel(dir.path(), opts));
  EXPECT_EQ(m->getPlaceholder("w_free")->getType(), Type(ElemKind::Float32, {2, 3}));
  EXPECT_EQ(m->getPlaceholder("y")->getType(), Type(ElemKind::Float32, {4, 2}));
  // A net listing no external input at all.
  TempDir none;
  none.write("predict_net.pbtxt", R"(external_output: "y"
    op { input: "x" output: "y" type: "Relu" })");
  none.write("init_net.pbtxt", "");
  ImportOptions byFile;
  byFile.inputShapes["x"] = {{3}, "x.npy", ElemKind::Float32};
  ASSERT_OK_AND_ASSIGN(auto m2, loadModel(none.path(), byFile));
  EXPECT_EQ(m2->getPlaceholder("x")->getType(), Type(ElemKind::Float32, {3}));
}

TEST(Caffe2Importer, BlobLeftUndefinedNamesItsReader) {
  TempDir dir;
  std::string predict = dir.write("predict_net.pbtxt", R"(
    external_input: "data" external_output: "y"
    op { input: "data" output: "d" output: "mask" type: "Dropout" arg { name: "is_test" i: 1 } }
    op { input: "mask" output: "y" name: "reader" type: "Relu" })");
  dir.write("init_net.pbtxt", "");
  std::string err = errorOf(loadModel(dir.path(), withDataType()));
  EXPECT_NE(err.find(predict + ": operator 'reader' (Relu): input 0 ('mask') is produced by "
                               "neither the init_net, an earlier operator, nor an external input"),
            std::string::npos)
      << err;
}

/// A copy of tests/models/caffe2/zoo_folder (binary and text nets, value_info.json) whose text
/// nets are made unreadable, so that loading proves which pair is read.
struct ZooFolder {
  TempDir dir;
  ZooFolder() {
    std::string src = sourcePath("tests/models/caffe2/zoo_folder");
    for (const char *f : {"predict_net.pb", "init_net.pb", "value_info.json"})
      std::system(("cp '" + src + "/" + f + "' '" + dir.path() + "/'").c_str());
    dir.write("predict_net.pbtxt", "not a net");
    dir.write("init_net.pbtxt", "not a net");
  }
};

TEST(Caffe2Importer, ZooFolderReadsTheBinaryPairTypedByValueInfo) {
  ZooFolder zoo;
  ASSERT_OK_AND_ASSIGN(auto m, loadModel(zoo.dir.path()));
  EXPECT_EQ(m->getPlaceholder("data")->getType(), Type(ElemKind::Float32, {1, 3, 4}));
  ASSERT_OK_AND_ASSIGN(Caffe2Folder folder, readCaffe2Folder(zoo.dir.path()));
  std::string note = caffe2FolderNote(zoo.dir.path(), folder);
  EXPECT_NE(note.find("reading " + zoo.dir.path() + "/predict_net.pb and " + zoo.dir.path() +
                      "/init_net.pb, input types from " + zoo.dir.path() + "/value_info.json"),
            std::string::npos)
      << note;
  // An explicit -model-input wins over value_info.json.
  ImportOptions declared;
  declared.declaredInputs["data"] = Type(ElemKind::Float32, {2, 3, 4});
  ASSERT_OK_AND_ASSIGN(auto m2, loadModel(zoo.dir.path(), declared));
  EXPECT_EQ(m2->getPlaceholder("prob")->getType(), Type(ElemKind::Float32, {2, 3, 4}));
  // An input file of another shape than value_info.json's is refused naming both.
  ImportOptions file;
  file.inputShapes["data"] = {{2, 3, 4}, "x.npy", ElemKind::Float32};
  std::string err = errorOf(loadModel(zoo.dir.path(), file));
  EXPECT_NE(err.find("x.npy has shape [2, 3, 4], " + zoo.dir.path() +
                     "/value_info.json declares float32<1 x 3 x 4>"),
            std::string::npos)
      << err;
}

TEST(Caffe2Importer, BrokenValueInfoIsRefusedNamingTheFile) {
  ZooFolder zoo;
  std::string info = zoo.dir.write("value_info.json", "{\"data\": [1, [1, 3, 4]]");
  std::string err = errorOf(loadModel(zoo.dir.path()));
  EXPECT_NE(err.find(info + ": not valid JSON"), std::string::npos) << err;
  zoo.dir.write("value_info.json", "{\"data\": [99, [1, 3, 4]]}");
  err = errorOf(loadModel(zoo.dir.path()));
  EXPECT_NE(err.find(info + ": input 'data': Caffe2 data type 99 (unknown) is not supported"),
            std::string::npos)
      << err;
  zoo.dir.write("value_info.json", "{\"data\": [1, 3]}");
  err = errorOf(loadModel(zoo.dir.path()));
  EXPECT_NE(err.find(info + ": input 'data': expected [elem_type, [dims]]"), std::string::npos)
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
  TempDir neither;
  neither.write("predict_net.pb", "");
  err = errorOf(loadModel(neither.path()));
  EXPECT_NE(err.find("it holds no init_net.pb or init_net.pbtxt"), std::string::npos) << err;
}

} // namespace
