// End-to-end tests of how values get into and out of the tools: inputs the model needs at
// compile time (bound on demand by model-runner, named in model-compiler's error), outputs
// written as lossless TensorProto .pb files of every element kind, bfloat16 .pb inputs, PNG
// and JPEG image inputs with Glow's preprocessing, and the -topk classes printed.
// The tools run as a user runs them (ToolTestUtils.h).
#include "ToolTestUtils.h"

#include "../ImageSamples.h"

#include "ember/Importer/TensorFiles.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace tooltest;

namespace {

const char *const kRunner = EMBER_MODEL_RUNNER;
const char *const kCompiler = EMBER_MODEL_COMPILER;

/// A fresh directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/ember-io-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string &name) const { return (path / name).string(); }
  std::string write(const std::string &name, const std::string &bytes) const {
    std::ofstream os(path / name, std::ios::binary | std::ios::trunc);
    os.write(bytes.data(), std::streamsize(bytes.size()));
    return (path / name).string();
  }
};

//===----------------------------------------------------------------------------------------===//
// Models (ONNX text format) and tensor files, written by hand
//===----------------------------------------------------------------------------------------===//

/// A graph input or output: ONNX element type number and static dims.
std::string valueInfo(const std::string &field, const std::string &name, int elemType,
                      const std::vector<int64_t> &dims) {
  std::string s = field + " { name: \"" + name + "\" type { tensor_type { elem_type: " +
                  std::to_string(elemType) + " shape {";
  for (int64_t d : dims)
    s += " dim { dim_value: " + std::to_string(d) + " }";
  return s + " } } } }\n";
}

std::string node(const std::string &op, const std::vector<std::string> &ins,
                 const std::vector<std::string> &outs, const std::string &attrs = "") {
  std::string s = "node { op_type: \"" + op + "\" name: \"" + outs[0] + "\"";
  for (const std::string &i : ins)
    s += " input: \"" + i + "\"";
  for (const std::string &o : outs)
    s += " output: \"" + o + "\"";
  return s + attrs + " }\n";
}

std::string model(const std::string &graphBody) {
  return "ir_version: 8\nopset_import { version: 13 }\ngraph {\n name: \"g\"\n" + graphBody +
         "}\n";
}

enum : int { kFloat = 1, kInt8 = 3, kUInt16 = 4, kInt64 = 7, kBool = 9, kFloat16 = 10,
             kBFloat16 = 16 };

template <typename T> std::string rawBytes(const std::vector<T> &v) {
  return std::string(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T));
}

/// A v1.0 .npy file of \p descr ("<f4", "<i8") and numpy \p shape ("(2, 3)").
std::string npy(const std::string &descr, const std::string &shape, const std::string &payload) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape +
                       ", }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  return out + header + payload;
}

/// A serialized TensorProto, encoded by hand (dims = 1, data_type = 2, name = 8, raw_data = 9)
/// so the tests do not read back only what ember itself writes.
std::string tensorProto(const std::string &name, int dataType, const std::vector<int64_t> &dims,
                        const std::string &raw) {
  auto varint = [](uint64_t v) {
    std::string s;
    for (; v >= 0x80; v >>= 7)
      s += char(0x80 | (v & 0x7f));
    return s + char(v);
  };
  std::string out;
  for (int64_t d : dims)
    out += char(0x08) + varint(uint64_t(d));
  out += char(0x10) + varint(uint64_t(dataType));
  out += char(0x42) + varint(name.size()) + name;
  out += char(0x4a) + varint(raw.size()) + raw;
  return out;
}

std::string varint(uint64_t v) {
  std::string s;
  for (; v >= 0x80; v >>= 7)
    s += char(0x80 | (v & 0x7f));
  return s + char(v);
}

/// A serialized SequenceProto of \p tensors (serialized TensorProtos), encoded by hand (name =
/// 1, elem_type = 2 with TENSOR = 1, tensor_values = 3).
std::string sequenceProto(const std::string &name, const std::vector<std::string> &tensors) {
  std::string out = char(0x0a) + varint(name.size()) + name + char(0x10) + varint(1);
  for (const std::string &t : tensors)
    out += char(0x1a) + varint(t.size()) + t;
  return out;
}

/// A serialized OptionalProto (name = 1, elem_type = 2, tensor_value = 3, sequence_value = 5):
/// holding \p value (a serialized TensorProto for elem_type 1, SequenceProto for 3) or nothing.
std::string optionalProto(const std::string &name, int elemType, const std::string &value) {
  std::string out = char(0x0a) + varint(name.size()) + name + char(0x10) + varint(elemType);
  if (!value.empty())
    out += char(elemType == 3 ? 0x2a : 0x1a) + varint(value.size()) + value;
  return out;
}

/// The bfloat16 bits of \p f (truncated: the test values are exact in bfloat16).
uint16_t bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return uint16_t(bits >> 16);
}

/// A Reshape whose shape is the graph input 'shape', added to the ordinary input 'y'.
const std::string kReshapeAdd =
    model(valueInfo("input", "x", kFloat, {2, 3}) + valueInfo("input", "shape", kInt64, {1}) +
          valueInfo("input", "y", kFloat, {6}) + node("Reshape", {"x", "shape"}, {"r"}) +
          node("Add", {"r", "y"}, {"sum"}) + valueInfo("output", "sum", kFloat, {6}));

//===----------------------------------------------------------------------------------------===//
// Inputs needed at compile time
//===----------------------------------------------------------------------------------------===//

TEST(ModelRunnerIO, BindsOnlyTheInputsNeededAtCompileTime) {
  TempDir dir;
  std::string m = dir.write("m.onnxtxt", kReshapeAdd);
  std::string x = dir.write("x.npy", npy("<f4", "(2, 3)", rawBytes<float>({1, 2, 3, 4, 5, 6})));
  std::string shape = dir.write("shape.npy", npy("<i8", "(1,)", rawBytes<int64_t>({6})));
  std::string y1 = dir.write("y1.npy", npy("<f4", "(6,)", rawBytes<float>({0, 0, 0, 0, 0, 0})));
  std::string y2 = dir.write("y2.npy", npy("<f4", "(6,)", rawBytes<float>({10, 20, 30, 40, 50, 60})));
  auto run = [&](const std::string &y, const std::string &out) {
    return runProgram(kRunner, {"-model=" + m, "-backend=Interpreter", "-input=x=" + x + ",shape=" +
                                    shape + ",y=" + y,
                                "-output-format=pb", "-output-dir=" + out, "-dump-graph"});
  };
  RunResult r = run(y1, dir / "out1");
  EXPECT_SUCCESS(r);
  EXPECT_NE(r.err.find("note: input 'shape' fixed at compile time to its given value"),
            std::string::npos)
      << r.describe();
  EXPECT_EQ(r.err.find("input 'x' fixed"), std::string::npos) << r.describe();
  EXPECT_EQ(r.err.find("input 'y' fixed"), std::string::npos) << r.describe();
  // x and y stay placeholders (run-time inputs); shape is gone.
  EXPECT_NE(r.out.find("placeholder %x : float32<2 x 3>"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("placeholder %y : float32<6>"), std::string::npos) << r.describe();
  EXPECT_EQ(r.out.find("placeholder %shape"), std::string::npos) << r.describe();
  // Two run-time values of y, two answers: y was not folded in.
  RunResult r2 = run(y2, dir / "out2");
  EXPECT_SUCCESS(r2);
  auto sum1 = ember::readTensorFile(dir / "out1/sum.pb");
  auto sum2 = ember::readTensorFile(dir / "out2/sum.pb");
  ASSERT_TRUE(bool(sum1) && bool(sum2));
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(sum1->dataAs<float>()[i], float(i + 1));
    EXPECT_EQ(sum2->dataAs<float>()[i], float(i + 1) * 11);
  }
}

TEST(ModelRunnerIO, BindsAnInputNeededThroughAComputedShape) {
  // The shape is computed from the input 's' (Concat with a constant): needed only transitively.
  TempDir dir;
  std::string body =
      valueInfo("input", "x", kFloat, {2, 3}) + valueInfo("input", "s", kInt64, {1}) +
      node("Constant", {}, {"minus1"},
           " attribute { name: \"value\" type: TENSOR t { dims: 1 data_type: 7 int64_data: -1 } }") +
      node("Concat", {"s", "minus1"}, {"shape"}, " attribute { name: \"axis\" type: INT i: 0 }") +
      node("Reshape", {"x", "shape"}, {"r"}) + valueInfo("output", "r", kFloat, {3, 2});
  std::string m = dir.write("m.onnxtxt", model(body));
  std::string x = dir.write("x.npy", npy("<f4", "(2, 3)", rawBytes<float>({1, 2, 3, 4, 5, 6})));
  std::string s = dir.write("s.npy", npy("<i8", "(1,)", rawBytes<int64_t>({3})));
  RunResult r = runProgram(kRunner, {"-model=" + m, "-input=x=" + x + ",s=" + s});
  EXPECT_SUCCESS(r);
  EXPECT_NE(r.err.find("note: input 's' fixed at compile time"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("output 'r' float32<3 x 2>"), std::string::npos) << r.describe();
}

TEST(ModelRunnerIO, ErrorsNameEveryInputNeededAtCompileTime) {
  // Two independent operands from graph inputs: one error names both.
  TempDir dir;
  std::string body = valueInfo("input", "x", kFloat, {2, 3}) +
                     valueInfo("input", "shape", kInt64, {1}) +
                     valueInfo("input", "eshape", kInt64, {2}) +
                     node("Reshape", {"x", "shape"}, {"r"}) +
                     node("Expand", {"x", "eshape"}, {"e"}) +
                     valueInfo("output", "r", kFloat, {6}) + valueInfo("output", "e", kFloat, {2, 3});
  std::string m = dir.write("m.onnxtxt", model(body));
  RunResult c = runProgram(kCompiler, {"-model=" + m, "-emit-bundle=" + dir / "bundle"});
  expectCleanError(c, {m + ": input 'shape' must be known at compile time: give it with "
                           "-onnx-define-input=shape=FILE",
                       m + ": input 'eshape' must be known at compile time: give it with "
                           "-onnx-define-input=eshape=FILE",
                       "needed by node 'r' (Reshape): input 1 ('shape')",
                       "needed by node 'e' (Expand): input 1 ('eshape')"});
  std::string x = dir.write("x.npy", npy("<f4", "(2, 3)", rawBytes<float>({1, 2, 3, 4, 5, 6})));
  RunResult r = runProgram(kRunner, {"-model=" + m, "-input=x=" + x});
  expectCleanError(r, {"input 'shape' must be known at compile time: give it with -input=shape=FILE",
                       "input 'eshape' must be known at compile time: give it with "
                       "-input=eshape=FILE"});
  // Given with -onnx-define-input, model-compiler compiles.
  std::string shape = dir.write("shape.npy", npy("<i8", "(1,)", rawBytes<int64_t>({6})));
  std::string eshape = dir.write("eshape.npy", npy("<i8", "(2,)", rawBytes<int64_t>({2, 3})));
  RunResult ok = runProgram(kCompiler, {"-model=" + m, "-emit-bundle=" + dir / "bundle",
                                        "-onnx-define-input=shape=" + shape,
                                        "-onnx-define-input=eshape=" + eshape},
                            300);
  EXPECT_SUCCESS(ok);
}

//===----------------------------------------------------------------------------------------===//
// Outputs of every element kind; bfloat16 inputs
//===----------------------------------------------------------------------------------------===//

/// Identity of a bfloat16, a float16, an int8 and a bool input.
const std::string kIdentities =
    model(valueInfo("input", "a", kBFloat16, {3}) + valueInfo("input", "b", kFloat16, {2}) +
          valueInfo("input", "c", kInt8, {4}) + valueInfo("input", "d", kBool, {3}) +
          node("Identity", {"a"}, {"oa"}) + node("Identity", {"b"}, {"ob"}) +
          node("Identity", {"c"}, {"oc"}) + node("Identity", {"d"}, {"od"}) +
          valueInfo("output", "oa", kBFloat16, {3}) + valueInfo("output", "ob", kFloat16, {2}) +
          valueInfo("output", "oc", kInt8, {4}) + valueInfo("output", "od", kBool, {3}));

TEST(ModelRunnerIO, PbOutputsRoundTripEveryElementKind) {
  TempDir dir;
  std::string m = dir.write("m.onnxtxt", kIdentities);
  std::vector<uint16_t> aBits = {bf16(1.5f), bf16(-2.25f), bf16(1e30f)};
  std::vector<uint16_t> bBits = {0x3c00, 0xc500}; // float16 1.0, -5.0
  std::vector<int8_t> c = {-128, -1, 0, 127};
  std::vector<uint8_t> d = {1, 0, 1};
  std::string a = dir.write("a.pb", tensorProto("a", kBFloat16, {3}, rawBytes(aBits)));
  std::string b = dir.write("b.pb", tensorProto("b", kFloat16, {2}, rawBytes(bBits)));
  std::string cf = dir.write("c.npy", npy("|i1", "(4,)", rawBytes(c)));
  std::string df = dir.write("d.npy", npy("|b1", "(3,)", rawBytes(d)));
  for (const char *backend : {"Interpreter", "CPU"}) {
    SCOPED_TRACE(backend);
    std::string out = dir / (std::string("out-") + backend);
    RunResult r = runProgram(kRunner, {"-model=" + m, std::string("-backend=") + backend,
                                       "-input=a=" + a + ",b=" + b + ",c=" + cf + ",d=" + df,
                                       "-output-format=pb", "-output-dir=" + out});
    EXPECT_SUCCESS(r);
    struct Expect {
      const char *name;
      ember::ElemKind kind;
      std::string bytes;
    } expects[] = {{"oa", ember::ElemKind::BFloat16, rawBytes(aBits)},
                   {"ob", ember::ElemKind::Float16, rawBytes(bBits)},
                   {"oc", ember::ElemKind::Int8, rawBytes(c)},
                   {"od", ember::ElemKind::Bool, rawBytes(d)}};
    for (const Expect &e : expects) {
      std::string name;
      auto t = ember::readTensorFile(out + "/" + e.name + ".pb", &name);
      ASSERT_TRUE(bool(t)) << e.name << ": " << llvm::toString(t.takeError());
      EXPECT_EQ(name, e.name);
      EXPECT_EQ(t->getType().kind, e.kind) << e.name;
      ASSERT_EQ(t->sizeInBytes(), e.bytes.size()) << e.name;
      EXPECT_EQ(std::memcmp(t->data(), e.bytes.data(), e.bytes.size()), 0) << e.name;
    }
  }
  // .npy has no bfloat16: refused before running, pointing at pb.
  RunResult npyOut = runProgram(kRunner, {"-model=" + m, "-input=a=" + a + ",b=" + b + ",c=" +
                                              cf + ",d=" + df,
                                          "-output-dir=" + dir / "npy"});
  expectCleanError(npyOut, {"output 'oa' is bfloat16<3>", ".npy cannot hold",
                            "-output-format=pb"});
  expectCleanError(runProgram(kRunner, {"-model=" + m, "-output-format=txt"}),
                   {"-output-format must be npy or pb"});
}

TEST(ModelRunnerIO, ReadsBFloat16PbInputsInBothSpellings) {
  // A BFLOAT16 TensorProto, and the UINT16 one ONNX 1.12's numpy_helper writes for bfloat16.
  TempDir dir;
  std::string m = dir.write(
      "m.onnxtxt",
      model(valueInfo("input", "a", kBFloat16, {2}) +
            node("Cast", {"a"}, {"f"}, " attribute { name: \"to\" type: INT i: 1 }") +
            valueInfo("output", "f", kFloat, {2})));
  std::vector<uint16_t> bits = {bf16(0.15625f), bf16(-3.0f)};
  for (int type : {kBFloat16, kUInt16}) {
    SCOPED_TRACE(type);
    std::string a = dir.write("a.pb", tensorProto("a", type, {2}, rawBytes(bits)));
    RunResult r = runProgram(kRunner, {"-model=" + m, "-input=a=" + a});
    EXPECT_SUCCESS(r);
    EXPECT_NE(r.out.find("[0.15625, -3]"), std::string::npos) << r.describe();
  }
}

//===----------------------------------------------------------------------------------------===//
// Sequence and optional inputs and outputs (SequenceProto, OptionalProto)
//===----------------------------------------------------------------------------------------===//

const std::string kSeqType = "type { sequence_type { elem_type { tensor_type { elem_type: 1 } } } }";
const std::string kOptType = "type { optional_type { elem_type { tensor_type { elem_type: 1 } } } }";

/// ys = SequenceInsert(xs, t): a sequence input and a sequence output.
const std::string kSequenceInsert =
    "ir_version: 8\nopset_import { version: 16 }\ngraph {\n name: \"g\"\n" +
    node("SequenceInsert", {"xs", "t"}, {"ys"}) + "input { name: \"xs\" " + kSeqType + " }\n" +
    valueInfo("input", "t", kFloat, {2}) + "output { name: \"ys\" " + kSeqType + " }\n}\n";

/// p = Identity(o), has = OptionalHasElement(o): an optional input and output.
const std::string kOptionalIdentity =
    "ir_version: 8\nopset_import { version: 16 }\ngraph {\n name: \"g\"\n" +
    node("Identity", {"o"}, {"p"}) + node("OptionalHasElement", {"o"}, {"has"}) +
    "input { name: \"o\" " + kOptType + " }\noutput { name: \"p\" " + kOptType + " }\n" +
    valueInfo("output", "has", kBool, {}) + "}\n";

TEST(ModelRunnerIO, SequenceInputsAndOutputsAreSequenceProtoFiles) {
  TempDir dir;
  std::string m = dir.write("m.onnxtxt", kSequenceInsert);
  std::string xs = dir.write(
      "xs.pb", sequenceProto("xs", {tensorProto("", kFloat, {3}, rawBytes<float>({1, 2, 3})),
                                    tensorProto("", kFloat, {1}, rawBytes<float>({4}))}));
  std::string t = dir.write("t.npy", npy("<f4", "(2,)", rawBytes<float>({5, 6})));
  for (const char *backend : {"Interpreter", "CPU"}) {
    SCOPED_TRACE(backend);
    std::string out = dir / (std::string("out-") + backend);
    RunResult r = runProgram(kRunner, {"-model=" + m, std::string("-backend=") + backend,
                                       "-input=xs=" + xs + ",t=" + t, "-output-format=pb",
                                       "-output-dir=" + out});
    EXPECT_SUCCESS(r);
    EXPECT_NE(r.err.find("note: input 'xs' is a sequence of 2 tensors: its length is compiled "
                         "in, its elements are the inputs xs[0]..xs[1]"),
              std::string::npos)
        << r.describe();
    EXPECT_NE(r.out.find("output 'ys' is a sequence of 3 tensors"), std::string::npos)
        << r.describe();
    ember::GraphValue ys;
    ys.sequence = true;
    std::string name;
    auto tensors = ember::readValueFile(out + "/ys.pb", ys, &name);
    ASSERT_TRUE(bool(tensors)) << llvm::toString(tensors.takeError());
    EXPECT_EQ(name, "ys");
    ASSERT_EQ(tensors->size(), 3u);
    EXPECT_EQ((*tensors)[0].getType(), ember::Type(ember::ElemKind::Float32, {3}));
    EXPECT_EQ((*tensors)[1].elementAsDouble(0), 4);
    EXPECT_EQ((*tensors)[2].elementAsDouble(1), 6);
  }
  // As .npy: one file per element.
  RunResult npyOut = runProgram(kRunner, {"-model=" + m, "-input=xs=" + xs + ",t=" + t,
                                          "-output-dir=" + dir / "npy"});
  EXPECT_SUCCESS(npyOut);
  for (const char *f : {"ys_0.npy", "ys_1.npy", "ys_2.npy"})
    EXPECT_TRUE(fs::exists(dir / ("npy/" + std::string(f)))) << f;
}

TEST(ModelRunnerIO, OptionalInputsAndOutputsAreOptionalProtoFiles) {
  TempDir dir;
  std::string m = dir.write("m.onnxtxt", kOptionalIdentity);
  std::string full = dir.write(
      "full.pb", optionalProto("o", 1, tensorProto("", kFloat, {2}, rawBytes<float>({7, 8}))));
  std::string empty = dir.write("empty.pb", optionalProto("o", 0, ""));
  ember::GraphValue p;
  p.optional = true;
  RunResult r = runProgram(kRunner, {"-model=" + m, "-input=o=" + full, "-output-format=pb",
                                     "-output-dir=" + dir / "full"});
  EXPECT_SUCCESS(r);
  auto got = ember::readValueFile(dir / "full/p.pb", p);
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  EXPECT_TRUE(p.present);
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].elementAsDouble(1), 8);
  auto has = ember::readTensorFile(dir / "full/has.pb");
  ASSERT_TRUE(bool(has));
  EXPECT_EQ(has->elementAsDouble(0), 1);

  RunResult e = runProgram(kRunner, {"-model=" + m, "-input=" + empty, "-output-format=pb",
                                     "-output-dir=" + dir / "empty"});
  EXPECT_SUCCESS(e);
  EXPECT_NE(e.err.find("note: input 'o' is an empty optional: it is compiled as absent"),
            std::string::npos)
      << e.describe();
  got = ember::readValueFile(dir / "empty/p.pb", p);
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  EXPECT_FALSE(p.present);
  EXPECT_TRUE(got->empty());
  has = ember::readTensorFile(dir / "empty/has.pb");
  ASSERT_TRUE(bool(has));
  EXPECT_EQ(has->elementAsDouble(0), 0);
}

TEST(ModelRunnerIO, BadSequenceAndOptionalFilesAreCleanErrors) {
  TempDir dir;
  std::string seqModel = dir.write("seq.onnxtxt", kSequenceInsert);
  std::string optModel = dir.write("opt.onnxtxt", kOptionalIdentity);
  std::string t = dir.write("t.npy", npy("<f4", "(2,)", rawBytes<float>({5, 6})));
  std::string good = dir.write(
      "good.pb", sequenceProto("xs", {tensorProto("", kFloat, {2}, rawBytes<float>({1, 2}))}));
  // Elements of two kinds.
  std::string mixed = dir.write(
      "mixed.pb", sequenceProto("xs", {tensorProto("", kFloat, {2}, rawBytes<float>({1, 2})),
                                       tensorProto("", kInt64, {1}, rawBytes<int64_t>({3}))}));
  expectCleanError(runProgram(kRunner, {"-model=" + seqModel, "-input=xs=" + mixed + ",t=" + t}),
                   {"mixed.pb: element 1 is int64<1>, element 0 float32<2>; a sequence's "
                    "tensors share one element kind"});
  // An optional of a type ember has no value for (MAP), and one holding a sequence for an
  // optional tensor.
  std::string map = dir.write("map.pb", optionalProto("o", 4, ""));
  expectCleanError(runProgram(kRunner, {"-model=" + optModel, "-input=o=" + map}),
                   {"map.pb: an optional of type MAP; ember reads optionals holding nothing, a "
                    "tensor or a sequence of tensors"});
  std::string disagree = dir.write(
      "disagree.pb", optionalProto("o", 3, tensorProto("", kFloat, {1}, rawBytes<float>({1}))));
  expectCleanError(runProgram(kRunner, {"-model=" + optModel, "-input=o=" + disagree}),
                   {"disagree.pb: holds an optional sequence, o is an optional tensor"});
  // A sequence where a tensor is expected, a tensor where a sequence is.
  expectCleanError(runProgram(kRunner, {"-model=" + seqModel, "-input=xs=" + good + ",t=" + good}),
                   {"good.pb"});
  expectCleanError(runProgram(kRunner, {"-model=" + seqModel, "-input=xs=" + t + ",t=" + t}),
                   {"input 'xs': " + t + " holds a tensor, the model expects a sequence"});
  std::string tensorPb = dir.write("t.pb", tensorProto("t", kFloat, {2}, rawBytes<float>({1, 2})));
  expectCleanError(runProgram(kRunner, {"-model=" + seqModel, "-input=xs=" + tensorPb + ",t=" + t}),
                   {"input 'xs': " + tensorPb + " holds a tensor, the model expects a sequence"});
  // No value at all.
  expectCleanError(runProgram(kRunner, {"-model=" + seqModel, "-input=t=" + t}),
                   {"input 'xs': no value is given for this input, a sequence"});
  // A sequence whose elements do not fit the model's element type.
  std::string ints = dir.write(
      "ints.pb", sequenceProto("xs", {tensorProto("", kInt64, {1}, rawBytes<int64_t>({3}))}));
  expectCleanError(runProgram(kRunner, {"-model=" + seqModel, "-input=xs=" + ints + ",t=" + t}),
                   {"input 'xs': ", "ints.pb holds int64<1>, the model expects float32 tensors"});
}

} // namespace

namespace {

TEST(ModelRunnerIO, MaxMemoryRefusesABiggerModelBeforeAllocating) {
  // The digits model's constant weights alone are 7680 bytes.
  std::string m = std::string(EMBER_SOURCE_DIR) + "/examples/models/digits_cnn.onnx";
  std::string image =
      "-input=image=" + std::string(EMBER_SOURCE_DIR) + "/examples/digits/images/digit_3.npy";
  expectCleanError(runProgram(kRunner, {"-model=" + m, image, "-max-memory=4K"}),
                   {"the model's memory (constant 7680", "more than the memory budget of 4096 "
                                                          "bytes (-max-memory)"});
  TempDir out;
  expectCleanError(runProgram(kCompiler, {"-model=" + m, "-emit-bundle=" + out.path.string(),
                                          "-max-memory=4K"}),
                   {"more than the memory budget of 4096 bytes"});
  RunResult ok = runProgram(kRunner, {"-model=" + m, image, "-max-memory=1M"});
  EXPECT_EQ(ok.exitCode, 0) << ok.describe();
  for (const char *bad : {"-max-memory=lots", "-max-memory=0", "-max-memory=99999999999T"})
    expectCleanError(runProgram(kRunner, {"-model=" + m, bad}), {"expected a size such as 512M"});
}

TEST(ModelRunnerIO, MaxMemoryRefusesConstantsTheLoaderWouldMake) {
  // The loader makes constants of its own whose size the model's shapes set: the unit weights
  // of a NegativeLogLikelihoodLoss without them (one per class: 2^28 classes, 1 GiB of float),
  // the all-true mask of a Dropout's second output. Each is refused before it is allocated
  // (a fuzzed model of 805,306,367 classes took the compile to 3.2 GB before this).
  TempDir dir;
  const int64_t kClasses = int64_t(1) << 28;
  std::string nll = dir.write(
      "nll.onnxtxt",
      model(node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}) +
            valueInfo("input", "x", kFloat, {1, kClasses}) +
            valueInfo("input", "t", kInt64, {1}) + valueInfo("output", "loss", kFloat, {})));
  expectCleanError(runProgram(kRunner, {"-model=" + nll, "-max-memory=64M"}),
                   {"NegativeLogLikelihoodLoss", "the filled constant 'weight' float32<268435456>",
                    "more than the memory budget of 67108864 bytes (-max-memory)"});
  std::string dropout = dir.write(
      "dropout.onnxtxt",
      model(node("Dropout", {"x"}, {"y", "mask"}) +
            valueInfo("input", "x", kFloat, {kClasses}) +
            valueInfo("output", "y", kFloat, {kClasses}) +
            valueInfo("output", "mask", kBool, {kClasses})));
  expectCleanError(runProgram(kRunner, {"-model=" + dropout, "-max-memory=64M"}),
                   {"Dropout", "the mask bool<268435456>", "more than the memory budget"});
}

} // namespace

//===----------------------------------------------------------------------------------------===//
// Image inputs (-input=NAME=FILE.png|.jpg): decoded, then preprocessed by Glow's formula
// ((pixel - mean) / stddev mapped from 0..255 onto the -image-mode range, in the input's
// layout and channel order); the PNGs are encoded here with zlib alone, the JPEG's pixels are
// PIL's, and each run feeds an Identity model whose output is what model-runner fed it.
//===----------------------------------------------------------------------------------------===//

/// A PNG of 8-bit gray (\p channels 1) or RGB (3) \p pixels, row-major [height][width][channels],
/// encoded with zlib (unfiltered rows) so that no PNG library of the project writes it.
std::string pngFile(uint32_t width, uint32_t height, int channels,
                    const std::vector<uint8_t> &pixels) {
  auto be32 = [](uint32_t v) {
    return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  };
  auto chunk = [&](const std::string &kind, const std::string &data) {
    std::string body = kind + data;
    uLong crc = crc32(0, reinterpret_cast<const Bytef *>(body.data()), uInt(body.size()));
    return be32(uint32_t(data.size())) + body + be32(uint32_t(crc));
  };
  std::string header = be32(width) + be32(height) + char(8) + char(channels == 1 ? 0 : 2) +
                       std::string(3, '\0');
  std::string rows;
  for (uint32_t y = 0; y < height; ++y) {
    rows += '\0'; // filter type None
    rows.append(reinterpret_cast<const char *>(pixels.data()) + y * width * channels,
                width * channels);
  }
  std::string packed(compressBound(uLong(rows.size())), '\0');
  uLongf packedSize = uLongf(packed.size());
  compress(reinterpret_cast<Bytef *>(packed.data()), &packedSize,
           reinterpret_cast<const Bytef *>(rows.data()), uLong(rows.size()));
  packed.resize(packedSize);
  return std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", header) + chunk("IDAT", packed) +
         chunk("IEND", "");
}

/// An Identity model of a float input 'x' with \p dims (a number, or a symbol's name).
std::string identityModel(const std::vector<std::string> &dims) {
  std::string shape;
  for (const std::string &d : dims)
    shape += std::isdigit(static_cast<unsigned char>(d[0])) ? " dim { dim_value: " + d + " }"
                                                             : " dim { dim_param: \"" + d + "\" }";
  auto info = [&](const std::string &field, const std::string &name) {
    return field + " { name: \"" + name + "\" type { tensor_type { elem_type: 1 shape {" + shape +
           " } } } }\n";
  };
  return model(info("input", "x") + node("Identity", {"x"}, {"y"}) + info("output", "y"));
}

/// What the model fed its input 'x' (its Identity output y.npy) on a successful run.
std::vector<float> fedValues(const TempDir &dir, const std::string &modelPath,
                             std::vector<std::string> args, std::string *dims = nullptr) {
  args.insert(args.begin(), {"-model=" + modelPath, "-backend=Interpreter",
                             "-output-dir=" + (dir / "out")});
  RunResult r = runProgram(kRunner, args);
  EXPECT_SUCCESS(r);
  auto t = ember::readTensorFile(dir / "out/y.npy");
  if (!t) {
    ADD_FAILURE() << llvm::toString(t.takeError()) << "\n" << r.describe();
    return {};
  }
  if (dims)
    *dims = t->getType().str();
  std::vector<float> v(t->numElements());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = float(t->elementAsDouble(i));
  return v;
}

/// Glow's preprocessing of RGB or gray \p pixels [h][w][c], the reference the runs are
/// checked against: mean and stddev per stored channel (R, G, B), then the mode's range.
struct Preprocess {
  double lo = 0, hi = 1;
  bool nhwc = false, bgr = true;
  std::vector<double> mean = {0, 0, 0}, stddev = {1, 1, 1};
};
std::vector<float> preprocessed(const std::vector<uint8_t> &pixels, size_t h, size_t w, size_t c,
                                const Preprocess &p) {
  std::vector<float> out(h * w * c);
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x)
      for (size_t k = 0; k < c; ++k) {
        double v = (pixels[(y * w + x) * c + k] - p.mean[k]) / p.stddev[k];
        v = v * (p.hi - p.lo) / 255 + p.lo;
        size_t to = p.bgr && c == 3 ? 2 - k : k;
        out[p.nhwc ? (y * w + x) * c + to : (to * h + y) * w + x] = float(v);
      }
  return out;
}

void expectValuesNear(const std::vector<float> &got, const std::vector<float> &want,
                      const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0f, std::fabs(want[i])))
        << what << ": element " << i;
}

// A 3x2 RGB image whose every sample differs.
const std::vector<uint8_t> kRGB = {0,  10,  20,  30,  40,  50,  60,  70,  80,
                                   90, 100, 110, 120, 130, 140, 250, 255, 5};

TEST(ModelRunnerIO, ImageInputsArePreprocessedAsGlowDoes) {
  TempDir dir;
  std::string m = dir.write("id.onnxtxt", identityModel({"N", "A", "B", "C"}));
  std::string png = dir.write("rgb.png", pngFile(3, 2, 3, kRGB));
  struct Case {
    std::vector<std::string> flags;
    Preprocess p;
    std::string dims;
  };
  Preprocess neg1to1Rgb;
  neg1to1Rgb.lo = -1;
  neg1to1Rgb.nhwc = true;
  neg1to1Rgb.bgr = false;
  Preprocess meanStd;
  meanStd.hi = 255;
  meanStd.mean = {10, 20, 30};
  meanStd.stddev = {2, 4, 8};
  Preprocess neg128;
  neg128.lo = -128;
  neg128.hi = 127;
  neg128.nhwc = true;
  neg128.mean = {100, 100, 100};
  neg128.stddev = {50, 50, 50};
  const Case cases[] = {
      {{}, Preprocess(), "float32<1 x 3 x 2 x 3>"}, // Glow's defaults: 0to1, NCHW, BGR
      {{"-image-mode=neg1to1", "-image-layout=NHWC", "-image-channel-order=RGB"}, neg1to1Rgb,
       "float32<1 x 2 x 3 x 3>"},
      {{"-image-mode=0to255", "-mean=10,20,30", "-stddev=2,4,8", "-image-channel-order=BGR"},
       meanStd, "float32<1 x 3 x 2 x 3>"},
      {{"-image-mode=neg128to127", "-mean=100", "-stddev=50", "-image-layout=NHWC"}, neg128,
       "float32<1 x 2 x 3 x 3>"},
  };
  for (const Case &c : cases) {
    std::vector<std::string> args = c.flags;
    args.push_back("-input=x=" + png);
    std::string dims;
    std::vector<float> got = fedValues(dir, m, args, &dims);
    std::string what;
    for (const std::string &f : c.flags)
      what += f + " ";
    EXPECT_EQ(dims, c.dims) << what;
    expectValuesNear(got, preprocessed(kRGB, 2, 3, 3, c.p), what);
  }
}

TEST(ModelRunnerIO, JPEGAndGrayImageInputsHoldTheirPixels) {
  TempDir dir;
  std::string m = dir.write("id.onnxtxt", identityModel({"N", "C", "H", "W"}));
  // The JPEG as PIL decodes it, in RGB order and NCHW.
  std::vector<uint8_t> jpeg = imagesamples::fromHex(imagesamples::kJPEG);
  std::string jpg = dir.write("color.jpg", std::string(jpeg.begin(), jpeg.end()));
  std::vector<uint8_t> rgb = imagesamples::fromHex(imagesamples::kJPEGRGB);
  Preprocess raw;
  raw.hi = 255;
  raw.bgr = false;
  expectValuesNear(fedValues(dir, m, {"-input=x=" + jpg, "-image-mode=0to255",
                                      "-image-channel-order=RGB"}),
                   preprocessed(rgb, 8, 8, 3, raw), "color.jpg");
  // A gray PNG stays one channel; the channel order does not apply to it.
  std::vector<uint8_t> gray = {0, 64, 128, 255, 7, 200};
  std::string png = dir.write("gray.png", pngFile(2, 3, 1, gray));
  std::string dims;
  expectValuesNear(fedValues(dir, m, {"-input=x=" + png, "-image-mode=0to255", "-mean=7",
                                      "-stddev=0.5"}, &dims),
                   {-14, 114, 242, 496, 0, 386}, "gray.png");
  EXPECT_EQ(dims, "float32<1 x 1 x 3 x 2>");
}

TEST(ModelRunnerIO, SeveralImagesForOneInputMakeABatch) {
  TempDir dir;
  std::string m = dir.write("id.onnxtxt", identityModel({"N", "3", "2", "3"}));
  std::vector<uint8_t> other(kRGB.rbegin(), kRGB.rend());
  std::string a = dir.write("a.png", pngFile(3, 2, 3, kRGB));
  std::string b = dir.write("b.png", pngFile(3, 2, 3, other));
  std::vector<float> want = preprocessed(kRGB, 2, 3, 3, Preprocess());
  std::vector<float> second = preprocessed(other, 2, 3, 3, Preprocess());
  want.insert(want.end(), second.begin(), second.end());
  // The repeated flag and the one-flag spelling are the same batch, in the order given.
  for (const auto &args : {std::vector<std::string>{"-input=x=" + a, "-input=x=" + b},
                           std::vector<std::string>{"-input=x=" + a + ",x=" + b}}) {
    std::string dims;
    expectValuesNear(fedValues(dir, m, args, &dims), want, args[0]);
    EXPECT_EQ(dims, "float32<2 x 3 x 2 x 3>");
  }
  // A model of batch 1 given two images, and a batch of two sizes, are refused.
  std::string one = dir.write("one.onnxtxt", identityModel({"1", "3", "2", "3"}));
  expectCleanError(runProgram(kRunner, {"-model=" + one, "-input=x=" + a, "-input=x=" + b}),
                   {"input 'x' [1,3,2,3] (NCHW) takes a batch of 1 image, but 2 are given",
                    "a.png", "b.png"});
  std::string wide = dir.write("wide.png", pngFile(4, 2, 3, std::vector<uint8_t>(24, 9)));
  expectFileError(runProgram(kRunner, {"-model=" + m, "-input=x=" + a + ",x=" + wide}), wide,
                  {"the image is 4x2", "takes 3x2 images", "-image-resize"});
  // Only images make a batch: a tensor file given twice stays an error.
  expectCleanError(runProgram(kRunner, {"-model=" + m, "-input=x=" + a, "-input=x=y.npy"}),
                   {"input 'x' is given twice"});
  // -input repeats; the image flags, like the other flags, do not.
  expectCleanError(runProgram(kRunner, {"-model=" + m, "-input=x=" + a, "-image-mode=0to1",
                                        "-image-mode=0to255"}),
                   {"flag '-image-mode=0to255' given twice (first as '-image-mode=0to1')"});
}

TEST(ModelRunnerIO, ImagesOfAnotherSizeAreRefusedOrResizedAsAsked) {
  TempDir dir;
  std::string m = dir.write("fixed.onnxtxt", identityModel({"1", "1", "1", "4"}));
  std::string png = dir.write("two.png", pngFile(2, 1, 1, {0, 255}));
  expectFileError(runProgram(kRunner, {"-model=" + m, "-input=x=" + png}), png,
                  {"the image is 2x1 (width x height)", "input 'x' [1,1,1,4] (NCHW)",
                   "takes 4x1 images", "-image-resize"});
  // A fixed height and a free width: only the height is wrong, and it cannot be resized to.
  std::string tall = dir.write("tall.onnxtxt", identityModel({"1", "1", "4", "W"}));
  expectFileError(runProgram(kRunner, {"-model=" + tall, "-input=x=" + png, "-image-resize"}),
                  png, {"input 'x' [1,1,4,?] (NCHW) takes images of height 4"});
  // Bilinear with half-pixel centers: source x = (x + 0.5) / 2 - 0.5 = -0.25 (clamped to 0),
  // 0.25, 0.75, 1.25 (clamped to 1).
  expectValuesNear(fedValues(dir, m, {"-input=x=" + png, "-image-resize", "-image-mode=0to255"}),
                   {0, 63.75f, 191.25f, 255}, "-image-resize");
}

TEST(ModelRunnerIO, BadImagesAreCleanErrors) {
  TempDir dir;
  std::string gray = dir.write("gray.onnxtxt", identityModel({"1", "1", "2", "3"}));
  std::string color = dir.write("color.onnxtxt", identityModel({"1", "3", "2", "3"}));
  std::string ints = dir.write(
      "ints.onnxtxt", model(valueInfo("input", "x", kInt64, {1, 1, 2, 3}) +
                            node("Identity", {"x"}, {"y"}) +
                            valueInfo("output", "y", kInt64, {1, 1, 2, 3})));
  std::string rgbBytes = pngFile(3, 2, 3, kRGB);
  std::string rgb = dir.write("rgb.png", rgbBytes);
  std::string grayPng = dir.write("g.png", pngFile(3, 2, 1, std::vector<uint8_t>(6, 1)));
  std::string cutPng = dir.write("cut.png", rgbBytes.substr(0, rgbBytes.size() - 20));
  std::vector<uint8_t> jpeg = imagesamples::fromHex(imagesamples::kJPEG);
  std::string cutJpg = dir.write("cut.jpg", std::string(jpeg.begin(), jpeg.end() - 40));
  std::string text = dir.write("notes.png", "just some text\n");
  std::string empty = dir.write("empty.jpeg", "");
  struct Bad {
    std::string model, file;
    std::string word, detail;
  };
  const Bad cases[] = {
      {gray, rgb, "3 channels (color)", "input 'x' [1,1,2,3] (NCHW) takes 1 channel"},
      {color, grayPng, "1 channel (grayscale)", "takes 3 channels (color)"},
      {gray, cutPng, "cannot decode the PNG image", "truncated"},
      {color, cutJpg, "cannot decode the JPEG image", "Premature end of JPEG file"},
      {gray, text, "the file is data in no image format ember knows", "PNG and JPEG"},
      {gray, empty, "the file is empty", "PNG and JPEG"},
      {gray, dir / "missing.png", "No such file or directory", ""},
      {ints, grayPng, "input 'x' is int64", "needs a float32 input"},
  };
  for (const Bad &b : cases)
    expectFileError(runProgram(kRunner, {"-model=" + b.model, "-input=x=" + b.file}), b.file,
                    {b.word, b.detail});
  for (const std::string &flag : std::vector<std::string>{"-image-mode=0to2",
                                  "-image-layout=CHW", "-image-channel-order=GBR",
                                  "-stddev=1,0,1", "-mean=1,2"})
    expectCleanError(runProgram(kRunner, {"-model=" + color, "-input=x=" + rgb, flag}),
                     {flag.substr(0, flag.find('='))});
}

//===----------------------------------------------------------------------------------------===//
// -topk and -labels
//===----------------------------------------------------------------------------------------===//

TEST(ModelRunnerIO, TopKPrintsTheBestClassesOfEachItem) {
  TempDir dir;
  std::string m = dir.write("id.onnxtxt", identityModel({"2", "5"}));
  std::vector<float> scores = {0.1f, 0.7f, 0.05f, 0.9f, 0.3f, 5, -1, 2, 2, 0};
  std::string x = dir.write("scores.npy", npy("<f4", "(2, 5)", rawBytes(scores)));
  std::string labels = dir.write("labels.txt", "cat\ndog\nfox\nowl\nemu\n");
  RunResult r = runProgram(kRunner, {"-model=" + m, "-input=x=" + x, "-topk=3",
                                     "-labels=" + labels});
  EXPECT_SUCCESS(r);
  // Best first; the tie of classes 2 and 3 in item 1 keeps the lower class first.
  EXPECT_NE(r.out.find("top 3 of output 'y' for item 0:\n"
                       "  1. class 3 score 0.9 owl\n"
                       "  2. class 1 score 0.7 dog\n"
                       "  3. class 4 score 0.3 emu\n"
                       "top 3 of output 'y' for item 1:\n"
                       "  1. class 0 score 5 cat\n"
                       "  2. class 2 score 2 fox\n"
                       "  3. class 3 score 2 owl\n"),
            std::string::npos)
      << r.describe();
  std::string short_ = dir.write("short.txt", "cat\ndog\n");
  expectFileError(runProgram(kRunner, {"-model=" + m, "-input=x=" + x, "-topk=1",
                                       "-labels=" + short_}),
                  short_, {"2 labels, but output 'y' has 5 classes"});
  expectCleanError(runProgram(kRunner, {"-model=" + m, "-input=x=" + x, "-labels=" + labels}),
                   {"-labels needs -topk"});
}

TEST(ModelRunnerIO, DigitPNGsAreClassifiedAsTheirNpyFiles) {
  // The digits example's PNGs (utils/models/make_digits_pngs.py: the .npy values x 255,
  // rounded) with -image-mode=0to1: each item named by its file, its class the digit's.
  std::string images = std::string(EMBER_SOURCE_DIR) + "/examples/digits/images/";
  for (int d : {3, 8}) {
    std::string png = images + "digit_" + std::to_string(d) + ".png";
    RunResult r = runProgram(kRunner, {"-model=" + std::string(EMBER_SOURCE_DIR) +
                                           "/examples/models/digits_cnn.onnx",
                                       "-backend=Interpreter", "-input=image=" + png,
                                       "-image-mode=0to1", "-topk=1",
                                       "-labels=" + images + "labels.txt"});
    EXPECT_SUCCESS(r);
    const char *names[] = {"zero", "one",  "two", "three", "four",
                           "five", "six", "seven", "eight", "nine"};
    std::string want = "for item 0 (" + png + "):\n  1. class " + std::to_string(d) +
                       " score ";
    EXPECT_NE(r.out.find(want), std::string::npos) << r.describe();
    EXPECT_NE(r.out.find(std::string(" ") + names[d] + "\n"), std::string::npos) << r.describe();
  }
}
