// End-to-end tests of model-runner: the binary is run as a user runs it (no shell), with its
// stdout, stderr, exit status and the files it writes checked. Every bad input must end in a
// clean "error: ..." and exit code 1: never a crash (signal), never a hang.
#include "ToolTestUtils.h"
#include "TraceCheck.h"

#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace tooltest;

namespace {

const char *const kRunner = EMBER_MODEL_RUNNER;

/// Runs model-runner with \p args.
RunResult runTool(const std::vector<std::string> &args, double timeoutSec = 60) {
  return runProgram(kRunner, args, timeoutSec);
}

const std::string kModels = std::string(EMBER_SOURCE_DIR) + "/tests/models";
const std::string kLinearSigmoid = kModels + "/linear_sigmoid";
const std::string kConstAdd = kModels + "/const_add/model.onnxtxt";
const std::string kSymbolicBatch = kModels + "/symbolic_batch/model.onnxtxt";

//===----------------------------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------------------------===//

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(os) << "cannot write " << path;
  os.write(bytes.data(), std::streamsize(bytes.size()));
  ASSERT_TRUE(os) << "cannot write " << path;
}

std::string readFile(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  EXPECT_TRUE(is) << "cannot read " << path;
  std::ostringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

/// A v1.0 .npy file: magic, version 1.0, little-endian uint16 header length, the header dict
/// padded with spaces to a 128-byte boundary and ending in '\n', then \p payload.
std::string npyBytes(const std::string &descr, const std::string &shape,
                     const std::string &payload) {
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((128 - total % 128) % 128, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char((header.size() >> 8) & 0xff);
  return out + header + payload;
}

template <typename T> std::string rawBytes(const std::vector<T> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(T));
}

std::string npyFloat32(const std::string &shape, const std::vector<float> &values) {
  return npyBytes("<f4", shape, rawBytes(values));
}

struct NpyArray {
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

/// "(1, 5)", "(1,5)", "(3,)", "()" -> dims.
std::vector<int64_t> parseNpyShape(const std::string &text) {
  std::vector<int64_t> dims;
  std::string cur;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-') {
      cur += c;
    } else if (!cur.empty()) {
      dims.push_back(std::stoll(cur));
      cur.clear();
    }
  }
  return dims;
}

/// Reads a little-endian float32 .npy (v1 or v2 header).
NpyArray readNpyFloat32(const std::string &path) {
  NpyArray a;
  std::string bytes = readFile(path);
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    ADD_FAILURE() << path << ": not an .npy file";
    return a;
  }
  size_t headerStart = bytes[6] == 1 ? 10 : 12;
  size_t headerLen = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
  if (bytes[6] != 1)
    headerLen |= (size_t(uint8_t(bytes[10])) << 16) | (size_t(uint8_t(bytes[11])) << 24);
  if (headerStart + headerLen > bytes.size()) {
    ADD_FAILURE() << path << ": truncated header";
    return a;
  }
  std::string header = bytes.substr(headerStart, headerLen);
  EXPECT_EQ((headerStart + headerLen) % 64, 0u) << path << ": data is not 64-byte aligned";
  size_t d = header.find("'descr':");
  if (d != std::string::npos) {
    size_t q1 = header.find('\'', d + 8), q2 = header.find('\'', q1 + 1);
    a.descr = header.substr(q1 + 1, q2 - q1 - 1);
  }
  size_t s = header.find("'shape':");
  if (s != std::string::npos) {
    size_t open = header.find('(', s), close = header.find(')', s);
    a.shape = parseNpyShape(header.substr(open, close - open + 1));
  }
  EXPECT_EQ(a.descr, "<f4") << path;
  std::string data = bytes.substr(headerStart + headerLen);
  EXPECT_EQ(data.size() % 4, 0u) << path;
  a.values.resize(data.size() / 4);
  std::memcpy(a.values.data(), data.data(), a.values.size() * 4);
  return a;
}

//===----------------------------------------------------------------------------------------===//
// Hand-written ONNX text models
//===----------------------------------------------------------------------------------------===//

/// A float tensor value_info: `input`/`output` entry with the given dims (numbers or symbols).
std::string valueInfo(const std::string &field, const std::string &name,
                      std::initializer_list<std::string> dims) {
  std::string s = "  " + field + " { name: \"" + name +
                  "\" type { tensor_type { elem_type: 1 shape {";
  for (const std::string &d : dims) {
    bool symbolic = !d.empty() && !(std::isdigit(static_cast<unsigned char>(d[0])) || d[0] == '-');
    s += symbolic ? " dim { dim_param: \"" + d + "\" }" : " dim { dim_value: " + d + " }";
  }
  return s + " } } } }\n";
}

/// A float initializer with dims and float_data.
std::string initializer(const std::string &name, std::initializer_list<int64_t> dims,
                        const std::vector<float> &values) {
  std::string s = "  initializer { name: \"" + name + "\" data_type: 1";
  for (int64_t d : dims)
    s += " dims: " + std::to_string(d);
  for (float v : values) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%.9g", double(v));
    s += std::string(" float_data: ") + buf;
  }
  return s + " }\n";
}

std::string node(const std::string &name, const std::string &op,
                 std::initializer_list<std::string> inputs,
                 std::initializer_list<std::string> outputs) {
  std::string s = "  node { name: \"" + name + "\" op_type: \"" + op + "\"";
  for (const std::string &i : inputs)
    s += " input: \"" + i + "\"";
  for (const std::string &o : outputs)
    s += " output: \"" + o + "\"";
  return s + " }\n";
}

/// A ModelProto in protobuf text format around \p graphBody.
std::string textModel(const std::string &graphBody, int opset = 13) {
  return "ir_version: 8\n"
         "opset_import { domain: \"\" version: " +
         std::to_string(opset) +
         " }\n"
         "graph {\n"
         "  name: \"g\"\n" +
         graphBody + "}\n";
}

/// The template every hand-written model starts from: y = Relu(x), x and y float [2,3].
const char *const kReluModel = R"(ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "g"
  node { name: "r" op_type: "Relu" input: "x" output: "y" }
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
  output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
}
)";

//===----------------------------------------------------------------------------------------===//
// Fixture: a fresh temp dir per test, removed afterwards
//===----------------------------------------------------------------------------------------===//

class ModelRunner : public ::testing::Test {
protected:
  std::string tmp;

  void SetUp() override {
    std::string base = ::testing::TempDir();
    if (base.empty() || base.back() != '/')
      base += '/';
    std::string pattern = base + "ember-model-runner-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern << ": "
                                                << strerror(errno);
    tmp = pattern;
  }

  void TearDown() override {
    if (!tmp.empty()) {
      std::error_code ec;
      fs::remove_all(tmp, ec);
    }
  }

  /// Writes \p bytes to tmp/\p name and returns the path.
  std::string put(const std::string &name, const std::string &bytes) {
    std::string path = tmp + "/" + name;
    writeFile(path, bytes);
    return path;
  }

  /// The linear_sigmoid model (x: float [1,10] -> y: float [1,5]) and its input.
  static std::string lsModel() { return kLinearSigmoid + "/model.onnx"; }
  static std::string lsInput() { return kLinearSigmoid + "/x.npy"; }

  /// Runs a hand-written text model with -dump-graph (no input data needed), expecting success:
  /// the positive control that makes each bad model's refusal meaningful.
  void expectModelLoads(const std::string &name, const std::string &text) {
    std::string path = put(name, text);
    RunResult r = runTool({"-model=" + path, "-dump-graph"});
    EXPECT_SUCCESS(r);
  }
};

//===----------------------------------------------------------------------------------------===//
// 1-2. Seed walkthroughs
//===----------------------------------------------------------------------------------------===//

TEST_F(ModelRunner, ConstAddPrintsSum) {
  RunResult r = runTool({"-model", kConstAdd});
  EXPECT_SUCCESS(r);
  EXPECT_NE(r.out.find("51.7, 14.4, 28.6"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("sum"), std::string::npos) << r.describe();
}

TEST_F(ModelRunner, ConstAddDumpGraphShowsOnlyLiveNodes) {
  for (const char *flag : {"-dump-graph", "-dumpGraph", "--dump-graph", "-dump_graph"}) {
    SCOPED_TRACE(flag);
    RunResult r = runTool({"-model", kConstAdd, flag});
    EXPECT_SUCCESS(r);
    EXPECT_NE(r.out.find("add_live"), std::string::npos) << r.describe();
    EXPECT_EQ(r.out.find("add_dead"), std::string::npos) << r.describe();
  }
}

TEST_F(ModelRunner, ConstAddDumpGraphDAGWritesDot) {
  std::string dot = tmp + "/g.dot";
  RunResult r = runTool({"-model", kConstAdd, "-dump-graph-DAG=" + dot});
  EXPECT_SUCCESS(r);
  ASSERT_TRUE(fs::exists(dot)) << r.describe();
  std::string text = readFile(dot);
  EXPECT_EQ(text.rfind("digraph", 0), 0u) << text;
  EXPECT_NE(text.find("add_live"), std::string::npos) << text;
  EXPECT_EQ(text.find("add_dead"), std::string::npos) << text;
}

TEST_F(ModelRunner, ConstAddOutputDirWritesNpy) {
  std::string out = tmp + "/out"; // does not exist yet: the tool creates it
  RunResult r = runTool({"-model", kConstAdd, "-output-dir=" + out});
  EXPECT_SUCCESS(r);
  ASSERT_TRUE(fs::exists(out + "/sum.npy")) << r.describe();
  NpyArray a = readNpyFloat32(out + "/sum.npy");
  EXPECT_EQ(a.shape, std::vector<int64_t>({3}));
  ASSERT_EQ(a.values.size(), 3u);
  EXPECT_FLOAT_EQ(a.values[0], 51.7f);
  EXPECT_FLOAT_EQ(a.values[1], 14.4f);
  EXPECT_FLOAT_EQ(a.values[2], 28.6f);
}

TEST_F(ModelRunner, LinearSigmoidMatchesTorch) {
  RunResult r = runTool({"-model", lsModel(), "-input=x=" + lsInput(), "-output-dir=" + tmp});
  EXPECT_SUCCESS(r);
  ASSERT_TRUE(fs::exists(tmp + "/y.npy")) << r.describe();
  NpyArray got = readNpyFloat32(tmp + "/y.npy");
  NpyArray want = readNpyFloat32(kLinearSigmoid + "/y_torch.npy");
  EXPECT_EQ(want.shape, std::vector<int64_t>({1, 5}));
  EXPECT_EQ(got.shape, want.shape);
  ASSERT_EQ(want.values.size(), 5u);
  ASSERT_EQ(got.values.size(), want.values.size());
  for (size_t i = 0; i < want.values.size(); ++i)
    EXPECT_NEAR(got.values[i], want.values[i], 1e-5) << "element " << i;
}

TEST_F(ModelRunner, LinearSigmoidDumpIR) {
  RunResult r = runTool({"-model", lsModel(), "-input=x=" + lsInput(), "-dump-ir"});
  EXPECT_SUCCESS(r);
  const std::string &o = r.out;
  EXPECT_NE(o.find("declare {"), std::string::npos) << r.describe();
  bool outLine = false, inLine = false;
  std::istringstream lines(o);
  for (std::string line; std::getline(lines, line);) {
    outLine |= line.find("@out") != std::string::npos;
    inLine |= line.find("@in") != std::string::npos;
  }
  EXPECT_TRUE(outLine) << r.describe();
  EXPECT_TRUE(inLine) << r.describe();
  EXPECT_NE(o.find("matmul"), std::string::npos) << r.describe();
  EXPECT_NE(o.find("sigmoid"), std::string::npos) << r.describe();
}

TEST_F(ModelRunner, LinearSigmoidFlagSpellings) {
  // Each spelling must run the model and write the same y.npy.
  std::vector<std::vector<std::string>> spellings = {
      {"-model=" + lsModel(), "-input=" + lsInput()},  // single-input form
      {"-model=" + lsModel(), "-input", lsInput()},    // "-flag value"
      {"--model=" + lsModel(), "--input=" + lsInput()}, // double dash
      {"--model", lsModel(), "-input", "x=" + lsInput()},
  };
  NpyArray want = readNpyFloat32(kLinearSigmoid + "/y_torch.npy");
  int i = 0;
  for (std::vector<std::string> args : spellings) {
    std::string out = tmp + "/out" + std::to_string(i++);
    args.push_back("-output-dir=" + out);
    RunResult r = runTool(args);
    SCOPED_TRACE(r.command);
    EXPECT_SUCCESS(r);
    EXPECT_NE(r.out.find("output 'y'"), std::string::npos) << r.describe();
    ASSERT_TRUE(fs::exists(out + "/y.npy")) << r.describe();
    NpyArray got = readNpyFloat32(out + "/y.npy");
    ASSERT_EQ(got.values.size(), want.values.size());
    for (size_t k = 0; k < want.values.size(); ++k)
      EXPECT_NEAR(got.values[k], want.values[k], 1e-5) << "element " << k;
  }
}

TEST_F(ModelRunner, LinearSigmoidONNXTensorInput) {
  // The .pb input form (ONNX TensorProto), as in the test data sets.
  RunResult r = runTool({"-model", lsModel(), "-input=" + kLinearSigmoid +
                                                  "/test_data_set_0/input_0.pb",
                         "-output-dir=" + tmp});
  EXPECT_SUCCESS(r);
  EXPECT_TRUE(fs::exists(tmp + "/y.npy")) << r.describe();
}

TEST_F(ModelRunner, DefaultBackendIsCPUAndInterpreterAgrees) {
  // The CPU backend is the default; the Interpreter is one flag away and gives the same answer.
  NpyArray want = readNpyFloat32(kLinearSigmoid + "/y_torch.npy");
  for (const char *backend : {"", "-backend=Interpreter", "-backend=CPU"}) {
    std::string out = tmp + "/out" + std::string(backend);
    std::vector<std::string> args = {"-model=" + lsModel(), "-input=" + lsInput(),
                                     "-output-dir=" + out, "-time-phases"};
    if (*backend)
      args.push_back(backend);
    RunResult r = runTool(args);
    SCOPED_TRACE(r.command);
    EXPECT_SUCCESS(r);
    // The CPU backend reports its own phases under "backend compile".
    bool cpu = std::string(backend) != "-backend=Interpreter";
    EXPECT_EQ(r.out.find("LLVM optimization") != std::string::npos, cpu) << r.describe();
    NpyArray got = readNpyFloat32(out + "/y.npy");
    ASSERT_EQ(got.values.size(), want.values.size());
    for (size_t k = 0; k < want.values.size(); ++k)
      EXPECT_NEAR(got.values[k], want.values[k], 1e-5) << "element " << k;
  }
}

TEST_F(ModelRunner, DumpLLVMIRAndAssembly) {
  RunResult ir = runTool({"-model=" + lsModel(), "-input=" + lsInput(), "-dump-llvm-ir"});
  EXPECT_SUCCESS(ir);
  // The entry, and the model function it calls with its team (CodeGen.h: GeneratedModule).
  EXPECT_NE(ir.out.find("i32 @ember_model(ptr"), std::string::npos) << ir.describe();
  EXPECT_NE(ir.out.find("@ember_model.model(ptr noalias"), std::string::npos)
      << ir.describe();
  EXPECT_NE(ir.out.find("@ember_model_team_start("), std::string::npos) << ir.describe();
  RunResult as = runTool({"-model=" + lsModel(), "-input=" + lsInput(), "-dump-llvm-asm"});
  EXPECT_SUCCESS(as);
  EXPECT_NE(as.out.find("ember_model:"), std::string::npos) << as.describe();
}

TEST_F(ModelRunner, DumpGraphAfterLowerShowsWhatTheBackendLowers) {
  // The CPU backend lowers a float32 InstanceNorm (to LayerNorm and a per-channel Mul and Add);
  // the Interpreter lowers nothing. Both give the same output.
  std::string model = put("in.onnxtxt", R"(ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "g"
  node { op_type: "InstanceNormalization" input: "x" input: "s" input: "b" output: "y" }
  initializer { name: "s" dims: 2 data_type: 1 float_data: 1.5 float_data: -0.5 }
  initializer { name: "b" dims: 2 data_type: 1 float_data: 0.25 float_data: 2 }
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 2 } dim { dim_value: 5 } } } } }
  output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 2 } dim { dim_value: 5 } } } } }
}
)");
  std::string x = put("x.npy", npyFloat32("(1, 2, 5)", {0.5f, -1, 2, 3.25f, -0.75f, 4, 4.5f, -2,
                                                         0, 1}));
  std::vector<NpyArray> outs;
  for (const char *backend : {"CPU", "Interpreter"}) {
    std::string out = tmp + "/" + backend;
    RunResult r = runTool({"-model=" + model, "-input=x=" + x, "-backend=" + std::string(backend),
                           "-dump-graph-after=lower", "-output-dir=" + out});
    SCOPED_TRACE(r.command);
    EXPECT_SUCCESS(r);
    bool cpu = std::string(backend) == "CPU";
    size_t dump = r.out.find("=== after pass 'lower' (round 1, ");
    ASSERT_NE(dump, std::string::npos) << r.describe();
    std::string graph = r.out.substr(dump);
    EXPECT_EQ(graph.substr(0, graph.find('\n')),
              cpu ? "=== after pass 'lower' (round 1, changed)"
                  : "=== after pass 'lower' (round 1, unchanged)");
    EXPECT_EQ(graph.find("= InstanceNorm") != std::string::npos, !cpu) << r.describe();
    EXPECT_EQ(graph.find("= LayerNorm") != std::string::npos, cpu) << r.describe();
    outs.push_back(readNpyFloat32(out + "/y.npy"));
  }
  ASSERT_EQ(outs[0].values.size(), 10u);
  ASSERT_EQ(outs[1].values.size(), 10u);
  for (size_t k = 0; k < 10; ++k)
    EXPECT_NEAR(outs[0].values[k], outs[1].values[k], 1e-5 + 1e-3 * std::fabs(outs[1].values[k]))
        << "element " << k;
}

TEST_F(ModelRunner, ProfileListsInstructionsSlowestFirst) {
  for (const char *backend : {"-backend=CPU", "-backend=Interpreter"}) {
    RunResult r = runTool({"-model=" + lsModel(), "-input=" + lsInput(), "-profile",
                           "-iterations=3", "-peak-gflops=100", backend});
    SCOPED_TRACE(backend);
    EXPECT_SUCCESS(r);
    EXPECT_NE(r.out.find("profile: "), std::string::npos) << r.describe();
    EXPECT_NE(r.out.find("over 4 run(s)"), std::string::npos) << r.describe();
    // A product's row gives its rate and, with -peak-gflops, its share of the peak.
    size_t fc = r.out.find("fullyconnected %");
    ASSERT_NE(fc, std::string::npos) << r.describe();
    std::string row = r.out.substr(r.out.rfind('\n', fc) + 1, fc - r.out.rfind('\n', fc) - 1);
    EXPECT_NE(row.find(" GFLOP/s "), std::string::npos) << row;
    EXPECT_NE(row.find("% of peak "), std::string::npos) << row;
  }
}

/// An instruction as a row of -profile shows it: "... [<rate> GFLOP/s ]<kind> %<name>[ -> <type>]".
struct ProfileRow {
  std::string kind;
  bool hasRate;
};

/// The rows of -profile in \p out, by instruction name.
std::map<std::string, ProfileRow> profileRows(const std::string &out) {
  std::map<std::string, ProfileRow> rows;
  size_t header = out.find("profile: ");
  if (header == std::string::npos)
    return rows;
  std::istringstream lines(out.substr(header));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
    size_t pct = line.find(" %", line.find("% ") + 2);
    size_t arrow = line.find(" -> ", pct);
    std::string name = line.substr(pct + 2, arrow == std::string::npos ? arrow : arrow - pct - 2);
    size_t kindAt = line.rfind(' ', pct - 1) + 1;
    rows[name] = {line.substr(kindAt, pct - kindAt), line.find(" GFLOP/s ") < pct};
  }
  return rows;
}

TEST_F(ModelRunner, TraceIsChromeTraceEventJSON) {
  // The JSON Object Format of the Trace Event Format (TraceCheck.h). The compile phases come
  // before the runs; each run holds one event per instruction -profile lists, inside the run's
  // span. A small CNN: convolutions, pools, a matrix product.
  std::string cnn = kModels + "/small_cnn";
  for (const char *backend : {"-backend=CPU", "-backend=Interpreter"}) {
    SCOPED_TRACE(backend);
    bool cpu = std::string(backend) == "-backend=CPU";
    std::string path = tmp + "/trace.json";
    std::vector<std::string> args = {"-model=" + cnn + "/model.onnxtxt",
                                     "-input=" + cnn + "/test_data_set_0/input_0.pb",
                                     "-iterations=4", "-profile", "-trace=" + path, backend};
    if (cpu)
      args.push_back("-threads=2");
    RunResult r = runTool(args);
    EXPECT_SUCCESS(r);
    std::map<std::string, ProfileRow> profiled = profileRows(r.out);
    ASSERT_GE(profiled.size(), 4u) << r.describe();
    tracecheck::Trace t;
    ASSERT_NO_FATAL_FAILURE(tracecheck::readTrace(readFile(path), t));
    std::set<std::string> names;
    for (const auto &[name, row] : profiled)
      names.insert(name);
    for (const tracecheck::Span &i : t.instrs) {
      ASSERT_TRUE(profiled.count(i.name)) << i.name << " is not an instruction -profile lists";
      EXPECT_EQ(i.args.getString("kind").value_or(""), profiled[i.name].kind) << i.name;
      const llvm::json::Array *outputs = i.args.getArray("outputs");
      ASSERT_TRUE(outputs && !outputs->empty() && (*outputs)[0].getAsString()) << i.name;
      // Products carry their rate, as -profile prints it; the others do not.
      EXPECT_EQ(i.args.getNumber("GFLOP/s").has_value(), profiled[i.name].hasRate) << i.name;
    }
    EXPECT_EQ(t.named["process_name"], 1);
    ASSERT_FALSE(t.phases.empty());
    ASSERT_EQ(t.runs.size(), 5u); // the -input run and the 4 iterations
    for (const tracecheck::Span &p : t.phases)
      EXPECT_LE(p.ts + p.dur, t.runs[0].ts) << "phase " << p.name << " after a run";
    tracecheck::expectEachInstructionOncePerRun(t, names);
    EXPECT_TRUE(t.parts.empty()); // no step large enough to split
    EXPECT_EQ(t.named["thread_name"], 1);
  }
  // Steps split over 2 threads: symbolic_batch's relu, broadcast and add over 1M x 4 floats
  // (small_cnn's steps are too small to split; smaller ones let the caller run both parts before
  // the worker wakes), their parts on both threads' tids inside their instruction's event.
  std::string npy = tmp + "/zeros.npy", path = tmp + "/threads.json";
  {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 4), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ').push_back('\n');
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes.push_back(char(header.size() & 0xff));
    bytes.push_back(char(header.size() >> 8));
    bytes += header + std::string(1048576 * 4 * 4, '\0');
    FILE *f = fopen(npy.c_str(), "wb");
    ASSERT_TRUE(f && fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
    fclose(f);
  }
  RunResult threaded = runTool({"-model=" + kSymbolicBatch, "-onnx-define-symbol=N,1048576",
                                "-input=" + npy, "-iterations=4", "-threads=2",
                                "-trace=" + path});
  EXPECT_SUCCESS(threaded);
  tracecheck::Trace split;
  ASSERT_NO_FATAL_FAILURE(tracecheck::readTrace(readFile(path), split));
  tracecheck::expectEachInstructionOncePerRun(split, {"relu0", "add0.broadcast", "add0"});
  tracecheck::expectPartsNestInTheirInstructions(split, 2);
  // A file that cannot be written is a clean error naming it, before the model runs.
  RunResult bad = runTool({"-model=" + lsModel(), "-input=" + lsInput(),
                           "-trace=" + tmp + "/no-such-dir/t.json"});
  expectCleanError(bad, {"-trace=" + tmp + "/no-such-dir/t.json", "No such file or directory"});
  EXPECT_EQ(bad.out, "") << bad.describe();
}

TEST_F(ModelRunner, TargetOptionMistakesAreClean) {
  std::vector<std::string> base = {"-model=" + lsModel(), "-input=" + lsInput()};
  auto with = [&](std::initializer_list<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra);
    return runTool(a);
  };
  expectCleanError(with({"-mcpu=no-such-cpu"}), {"unknown CPU 'no-such-cpu'"});
  expectCleanError(with({"-mattr=+no-such-feature"}), {"unknown feature '+no-such-feature'"});
  expectCleanError(with({"-target=riscv64-linux-gnu"}), {"x86_64 and aarch64"});
  expectCleanError(with({"-code-model=huge"}), {"unknown code model 'huge'"});
  expectCleanError(with({"-relocation-model=ropi"}), {"unknown relocation model 'ropi'"});
  expectCleanError(with({"-llvm-opt-level=4"}), {"-llvm-opt-level must be 0, 1, 2 or 3, not 4"});
  expectCleanError(with({"-llvm-opt-level=-1"}), {"-llvm-opt-level must be 0, 1, 2 or 3, not -1"});
  // Code for another machine cannot run here: the JIT refuses it and points at bundles.
  expectCleanError(with({"-target=aarch64-linux-gnu"}), {"cannot run on this machine", "bundle"});
  expectCleanError(with({"-backend=Interpreter", "-mcpu=skylake"}), {"Interpreter", "-backend=CPU"});
  expectCleanError(with({"-backend=Interpreter", "-llvm-opt-level=0"}),
                   {"Interpreter", "-backend=CPU"});
  expectCleanError(with({"-backend=OpenCL", "-llvm-opt-level=2"}), {"OpenCL", "-backend=CPU"});
  expectCleanError(with({"-threads=0"}), {"-threads must be from 1 to 64"});
  expectCleanError(with({"-threads=2", "-backend=Interpreter"}), {"thread", "-backend=CPU"});
}

TEST_F(ModelRunner, OlderCPUStillRuns) {
  // Code for a CPU without AVX-512 (the narrow GEMM tile) runs here and agrees with torch.
  NpyArray want = readNpyFloat32(kLinearSigmoid + "/y_torch.npy");
  RunResult r = runTool({"-model=" + lsModel(), "-input=" + lsInput(), "-mcpu=haswell",
                         "-output-dir=" + tmp});
  EXPECT_SUCCESS(r);
  NpyArray got = readNpyFloat32(tmp + "/y.npy");
  ASSERT_EQ(got.values.size(), want.values.size());
  for (size_t k = 0; k < want.values.size(); ++k)
    EXPECT_NEAR(got.values[k], want.values[k], 1e-5) << "element " << k;
}

//===----------------------------------------------------------------------------------------===//
// 3. -help
//===----------------------------------------------------------------------------------------===//

TEST_F(ModelRunner, HelpListsFlags) {
  for (const char *flag : {"-help", "--help"}) {
    RunResult r = runTool({flag});
    SCOPED_TRACE(flag);
    EXPECT_SUCCESS(r);
    for (const char *f : {"-model", "-input", "-dump-graph", "-output-dir", "-strict-onnx"})
      EXPECT_NE(r.out.find(f), std::string::npos) << f << "\n" << r.describe();
  }
}

//===----------------------------------------------------------------------------------------===//
// Positive controls for the hand-written models
//===----------------------------------------------------------------------------------------===//

TEST_F(ModelRunner, HandWrittenTemplateRuns) {
  std::string model = put("relu.onnxtxt", kReluModel);
  std::string x = put("x.npy", npyFloat32("(2, 3)", {-1, 2, -3, 4, -5, 6}));
  RunResult r = runTool({"-model=" + model, "-input=x=" + x, "-output-dir=" + tmp + "/out"});
  EXPECT_SUCCESS(r);
  NpyArray y = readNpyFloat32(tmp + "/out/y.npy");
  EXPECT_EQ(y.shape, std::vector<int64_t>({2, 3}));
  std::vector<float> want = {0, 2, 0, 4, 0, 6};
  EXPECT_EQ(y.values, want);

  // The generated template is the same model.
  std::string gen = put("gen.onnxtxt", textModel(node("r", "Relu", {"x"}, {"y"}) +
                                                 valueInfo("input", "x", {"2", "3"}) +
                                                 valueInfo("output", "y", {"2", "3"})));
  r = runTool({"-model=" + gen, "-input=" + x, "-output-dir=" + tmp + "/out2"});
  EXPECT_SUCCESS(r);
  EXPECT_EQ(readNpyFloat32(tmp + "/out2/y.npy").values, want);
}

//===----------------------------------------------------------------------------------------===//
// 4. Bad inputs: exit code 1, "error: ..." naming the problem
//===----------------------------------------------------------------------------------------===//

TEST_F(ModelRunner, MissingModelFile) {
  std::string path = tmp + "/does-not-exist.onnx";
  expectFileError(runTool({"-model=" + path}), path, {"No such file"});
}

TEST_F(ModelRunner, ModelPathIsDirectory) {
  expectFileError(runTool({"-model=" + tmp}), tmp, {"directory"});
}

TEST_F(ModelRunner, Caffe2ModelFormsAndInputTypes) {
  // The same net as two files (predict first) and as its folder; its input typed by the input
  // file, or by -model-input when no file gives it.
  std::string dir = kModels + "/caffe2/conv_net", data = dir + "/test_data_set_0/input_0.pb";
  RunResult files = runTool({"-model=" + dir + "/predict_net.pb", "-model=" + dir + "/init_net.pb",
                             "-input=data=" + data});
  EXPECT_SUCCESS(files);
  RunResult folder = runTool({"-model=" + dir, "-input=data=" + data, "-backend=Interpreter"});
  EXPECT_SUCCESS(folder);
  EXPECT_NE(files.out.find("output 'prob' float32<2 x 5>"), std::string::npos) << files.describe();
  EXPECT_SUCCESS(runTool({"-model=" + dir, "-model-input=data,float,[1,3,8,8]", "-dump-graph",
                          "-backend=Interpreter"}));
  expectCleanError(runTool({"-model=" + dir}), {"input 'data'", "-model-input=data,float"});
  expectCleanError(runTool({"-model=" + dir, "-model-input=data,float,1,3"}), {"no [dims]"});
  expectCleanError(runTool({"-model=" + dir, "-model-input=data,int8q,[1,3,8,8]"}),
                   {"needs ,SCALE,OFFSET"});
  expectCleanError(runTool({"-model=" + dir + "/init_net.pb", "-model=" + dir + "/predict_net.pb",
                            "-input=data=" + data}),
                   {"this is a predict_net, not an init_net"});
  expectCleanError(runTool({"-model=" + dir + "/predict_net.pb"}), {"needs both nets"});
  expectCleanError(runTool({"-model=a", "-model=b", "-model=c"}), {"too many model files"});
}

TEST_F(ModelRunner, EmptyModelFile) {
  std::string path = put("empty.onnx", "");
  expectFileError(runTool({"-model=" + path}), path, {"empty"});
}

TEST_F(ModelRunner, TruncatedBinaryModel) {
  std::string whole = readFile(lsModel());
  ASSERT_GT(whole.size(), 100u);
  // Positive control: a byte-exact copy runs.
  std::string copy = put("copy.onnx", whole);
  EXPECT_SUCCESS(runTool({"-model=" + copy, "-input=" + lsInput()}));
  std::string path = put("truncated.onnx", whole.substr(0, whole.size() / 2));
  expectFileError(runTool({"-model=" + path, "-input=" + lsInput()}), path, {});
}

TEST_F(ModelRunner, RandomBytesModel) {
  std::mt19937 rng(12345);
  std::string bytes(4096, '\0');
  for (char &c : bytes)
    c = char(rng() & 0xff);
  std::string path = put("random.onnx", bytes);
  expectFileError(runTool({"-model=" + path, "-dump-graph"}), path, {});
}

TEST_F(ModelRunner, BrokenTextModel) {
  std::string path = put("broken.onnxtxt", "ir_version: 8 graph { node { op_type: ");
  expectFileError(runTool({"-model=" + path}), path, {"text"});
}

TEST_F(ModelRunner, DanglingNodeInput) {
  auto model = [](bool defined) {
    return textModel(node("add", "Add", {"x", "ghost_value"}, {"y"}) +
                     (defined ? initializer("ghost_value", {2, 3}, {1, 1, 1, 1, 1, 1}) : "") +
                     valueInfo("input", "x", {"2", "3"}) + valueInfo("output", "y", {"2", "3"}));
  };
  expectModelLoads("ok.onnxtxt", model(true));
  std::string path = put("dangling.onnxtxt", model(false));
  expectFileError(runTool({"-model=" + path, "-dump-graph"}), path, {"ghost_value"});
}

TEST_F(ModelRunner, UnknownOpsAreAllListed) {
  auto model = [](const std::string &op1, const std::string &op2) {
    return textModel(node("n1", op1, {"x"}, {"a"}) + node("n2", "Relu", {"a"}, {"b"}) +
                     node("n3", op2, {"b"}, {"y"}) + valueInfo("input", "x", {"2", "3"}) +
                     valueInfo("output", "y", {"2", "3"}));
  };
  expectModelLoads("ok.onnxtxt", model("Relu", "Relu"));
  std::string path = put("unknown.onnxtxt", model("FooOp", "BarOp"));
  RunResult r = runTool({"-model=" + path, "-dump-graph"});
  expectFileError(r, path, {"unsupported", "FooOp", "BarOp"});
  // The supported Relu is not listed.
  EXPECT_EQ(r.err.find("Relu"), std::string::npos) << r.describe();
}

TEST_F(ModelRunner, InitializerDataDoesNotMatchDims) {
  auto model = [](size_t n) {
    std::vector<float> values(n, 0.5f);
    return textModel(node("add", "Add", {"x", "weights_w"}, {"y"}) +
                     initializer("weights_w", {2, 3}, values) +
                     valueInfo("input", "x", {"2", "3"}) + valueInfo("output", "y", {"2", "3"}));
  };
  expectModelLoads("ok.onnxtxt", model(6));
  std::string path = put("bad_init.onnxtxt", model(5));
  expectFileError(runTool({"-model=" + path, "-dump-graph"}), path, {"weights_w"});
}

TEST_F(ModelRunner, InitializerWithNegativeDims) {
  auto model = [](int64_t d0) {
    return textModel(node("add", "Add", {"x", "weights_w"}, {"y"}) +
                     initializer("weights_w", {d0, 3}, {1, 2, 3}) +
                     valueInfo("input", "x", {"1", "3"}) + valueInfo("output", "y", {"1", "3"}));
  };
  expectModelLoads("ok.onnxtxt", model(1));
  std::string path = put("negative.onnxtxt", model(-1));
  expectFileError(runTool({"-model=" + path, "-dump-graph"}), path, {"weights_w", "negative"});
}

TEST_F(ModelRunner, InputShapeOverflows) {
  auto model = [](const std::string &d) {
    return textModel(node("r", "Relu", {"x"}, {"y"}) + valueInfo("input", "x", {d, d, d}) +
                     valueInfo("output", "y", {d, d, d}));
  };
  expectModelLoads("ok.onnxtxt", model("4"));
  std::string path = put("overflow.onnxtxt", model("4294967296"));
  expectFileError(runTool({"-model=" + path, "-dump-graph"}), path, {"overflow"});
}

TEST_F(ModelRunner, BroadcastMismatch) {
  auto model = [](const std::string &bDim) {
    return textModel(node("add", "Add", {"a", "b"}, {"y"}) + valueInfo("input", "a", {"2", "3"}) +
                     valueInfo("input", "b", {bDim}) + valueInfo("output", "y", {"2", "3"}));
  };
  expectModelLoads("ok.onnxtxt", model("3"));
  std::string path = put("broadcast.onnxtxt", model("4"));
  expectFileError(runTool({"-model=" + path, "-dump-graph"}), path, {"broadcast"});
}

TEST_F(ModelRunner, OpsetTooNew) {
  std::string body = node("r", "Relu", {"x"}, {"y"}) + valueInfo("input", "x", {"2", "3"}) +
                     valueInfo("output", "y", {"2", "3"});
  expectModelLoads("ok.onnxtxt", textModel(body, 13));
  std::string path = put("opset99.onnxtxt", textModel(body, 99));
  expectFileError(runTool({"-model=" + path, "-dump-graph"}), path, {"opset", "99"});
}

TEST_F(ModelRunner, ValueDefinedTwice) {
  auto model = [](const std::string &secondOut) {
    return textModel(node("r1", "Relu", {"x"}, {"dup_value"}) +
                     node("r2", "Relu", {"x"}, {secondOut}) +
                     node("add", "Add", {"dup_value", secondOut}, {"y"}) +
                     valueInfo("input", "x", {"2", "3"}) + valueInfo("output", "y", {"2", "3"}));
  };
  expectModelLoads("ok.onnxtxt", model("other_value"));
  std::string path = put("twice.onnxtxt", model("dup_value"));
  expectFileError(runTool({"-model=" + path, "-dump-graph"}), path, {"dup_value"});
}

TEST_F(ModelRunner, MissingRequiredAttribute) {
  // MaxPool without kernel_shape: the ONNX checker's message spans several lines; each line the
  // tool prints as "error:" must still name the model (no empty "error: " fragment).
  auto model = [](bool withKernel) {
    std::string attr =
        withKernel ? " attribute { name: \"kernel_shape\" ints: 2 ints: 2 type: INTS }" : "";
    return textModel("  node { name: \"pool\" op_type: \"MaxPool\" input: \"x\" output: \"y\"" +
                     attr + " }\n" + valueInfo("input", "x", {"1", "1", "4", "4"}) +
                     valueInfo("output", "y", {"1", "1", "3", "3"}));
  };
  expectModelLoads("ok.onnxtxt", model(true));
  std::string path = put("nokernel.onnxtxt", model(false));
  expectFileError(runTool({"-model=" + path, "-dump-graph"}), path, {"kernel_shape", "MaxPool"});
}

// A checker finding that leaves the model unambiguous (here an unnamed graph) is one warning on
// stderr and the model runs; -strict-onnx refuses it with the checker's message.
TEST_F(ModelRunner, LenientONNXCheckerFindingsWarnOnceAndStrictRefuses) {
  std::string model = kReluModel;
  model.replace(model.find("name: \"g\""), 9, "");
  std::string path = put("unnamed.onnxtxt", model);
  std::string x = put("x.npy", npyFloat32("(2, 3)", {-1, 2, -3, 4, -5, 6}));
  RunResult r = runTool({"-model=" + path, "-input=" + x, "-backend=Interpreter"});
  EXPECT_SUCCESS(r);
  EXPECT_NE(r.out.find("[0, 2, 0, 4, 0, 6]"), std::string::npos) << r.describe();
  std::string warning = "warning: " + path +
                        ": ONNX checker finding tolerated: graph without a name: the main graph "
                        "(ember does not use graph names; -strict-onnx refuses it)\n";
  EXPECT_EQ(r.err, warning) << r.describe();

  RunResult strict = runTool({"-model=" + path, "-input=" + x, "-strict-onnx"});
  expectFileError(strict, path,
                  {"invalid ONNX model: Field 'name' of 'graph' is required to be non-empty."});
  EXPECT_EQ(strict.err.find("warning:"), std::string::npos) << strict.describe();
}

// Command-line mistakes are reported in the tool's own "error: ..." format, exit code 1.
TEST_F(ModelRunner, UnknownFlag) {
  expectCleanError(runTool({"-model=" + kConstAdd, "-no-such-flag"}), {"no-such-flag"});
}

TEST_F(ModelRunner, FlagMissingItsValue) {
  expectCleanError(runTool({"-model"}), {"model"});
}

TEST_F(ModelRunner, StrayPositionalArgument) {
  expectCleanError(runTool({"-model=" + kConstAdd, "stray"}), {"stray"});
}

TEST_F(ModelRunner, NoModelGiven) { expectCleanError(runTool({}), {"-model"}); }

TEST_F(ModelRunner, EmptyInputFileName) {
  expectCleanError(runTool({"-model=" + lsModel(), "-input=x="}), {"-input", "empty"});
}

TEST_F(ModelRunner, MalformedSymbolDefinition) {
  for (const char *def : {"N,-1", "N=3", "N,abc", ",3"}) {
    SCOPED_TRACE(def);
    expectCleanError(
        runTool({"-model=" + kSymbolicBatch, "-onnx-define-symbol=" + std::string(def)}),
        {"-onnx-define-symbol", def});
  }
}

TEST_F(ModelRunner, DefineInputBindsAShapeInputAtCompileTime) {
  // From the ONNX backend suite (libonnx-testdata): Reshape's shape is a graph input.
  const std::string dir = "/usr/share/libonnx-testdata/data/node/test_reshape_one_dim";
  const std::string model = dir + "/model.onnx";
  const std::string data = dir + "/test_data_set_0/input_0.pb";
  const std::string shape = dir + "/test_data_set_0/input_1.pb";
  expectCleanError(runTool({"-model=" + model, "-input=data=" + data, "-dump-graph"}),
                   {model + ": input 'shape' must be known at compile time: give it with "
                            "-input=shape=FILE",
                    "\n  needed by node 'reshaped' (Reshape): input 1 ('shape')"});
  RunResult r = runTool({"-model=" + model, "-onnx-define-input=shape=" + shape,
                         "-input=data=" + data});
  EXPECT_SUCCESS(r);
  EXPECT_NE(r.out.find("output 'reshaped' float32<24>"), std::string::npos) << r.describe();
  expectCleanError(runTool({"-model=" + model, "-onnx-define-input=nosuch=3", "-input=" + data}),
                   {"no input named 'nosuch'"});
  expectCleanError(runTool({"-model=" + model, "-onnx-define-input=shape=abc", "-input=" + data}),
                   {"neither a number nor a .npy/.pb file"});
}

TEST_F(ModelRunner, SymbolDefinitionConflictsAndTypos) {
  expectCleanError(runTool({"-model=" + kSymbolicBatch, "-onnx-define-symbol=N,3",
                            "-onnx-define-symbol=N,4", "-dump-graph"}),
                   {"'N' is defined as both 3 and 4"});
  expectCleanError(runTool({"-model=" + kSymbolicBatch, "-onnx-define-symbol=N,3",
                            "-onnx-define-symbol=Batch,4", "-dump-graph"}),
                   {kSymbolicBatch, "no input of the model has a symbolic dim named 'Batch'"});
}

TEST_F(ModelRunner, InputRepeatsAndOtherFlagsDoNot) {
  // -input accumulates as -model-input does: each input's data from its own flag. Before, the
  // last -input replaced the first, and the error blamed 'a' for having no data.
  std::string model = put("add.onnxtxt", textModel(node("add", "Add", {"a", "b"}, {"y"}) +
                                                    valueInfo("input", "a", {"2", "3"}) +
                                                    valueInfo("input", "b", {"2", "3"}) +
                                                    valueInfo("output", "y", {"2", "3"})));
  std::string a = put("a.npy", npyFloat32("(2, 3)", {1, 2, 3, 4, 5, 6}));
  std::string b = put("b.npy", npyFloat32("(2, 3)", {10, 20, 30, 40, 50, 60}));
  RunResult r = runTool({"-model=" + model, "-input=a=" + a, "-input", "b=" + b});
  EXPECT_SUCCESS(r);
  EXPECT_NE(r.out.find("[11, 22, 33, 44, 55, 66]"), std::string::npos) << r.describe();
  // Any other flag given twice names itself, in both spellings.
  expectCleanError(runTool({"-model=" + model, "-input=a=" + a + ",b=" + b, "-threads=2",
                            "--threads", "1"}),
                   {"'--threads' given twice", "'-threads=2'"});
  expectCleanError(runTool({"-model=" + model, "-dumpGraph", "-dump-graph"}),
                   {"'-dump-graph' given twice", "'-dumpGraph'"});
}

TEST_F(ModelRunner, OutputDirThatIsAFileFailsBeforeRunning) {
  std::string file = put("afile", "not a directory");
  RunResult r = runTool({"-model=" + kConstAdd, "-output-dir=" + file});
  expectCleanError(r, {file});
  EXPECT_EQ(r.out.find("output 'sum'"), std::string::npos) << r.describe();
}

TEST_F(ModelRunner, GraphOutputIsGraphInput) {
  // A valid ONNX graph may list a graph input directly as a graph output (the ONNX checker
  // accepts it). ember refuses it with a message that says so (inputs and outputs are
  // distinct placeholders), not "input 'x' is defined twice".
  std::string model = put("passthrough.onnxtxt", textModel(valueInfo("input", "x", {"2", "3"}) +
                                                           valueInfo("output", "x", {"2", "3"})));
  std::vector<float> values = {-1, 2, -3, 4, -5, 6};
  std::string x = put("in.npy", npyFloat32("(2, 3)", values));
  RunResult r = runTool({"-model=" + model, "-input=" + x, "-output-dir=" + tmp + "/out"});
  expectCleanError(r, {model, "graph output 'x' is also a graph input"});
  EXPECT_EQ(r.err.find("defined twice"), std::string::npos) << r.describe();
}

TEST_F(ModelRunner, InputNpyWrongShape) {
  std::string x = put("x.npy", npyFloat32("(2, 3)", {1, 2, 3, 4, 5, 6}));
  // Positive control: a generated .npy of the right shape runs.
  std::string good = put("good.npy", npyFloat32("(1, 10)", std::vector<float>(10, 0.25f)));
  EXPECT_SUCCESS(runTool({"-model=" + lsModel(), "-input=x=" + good}));
  expectCleanError(runTool({"-model=" + lsModel(), "-input=x=" + x}), {x, "shape", "'x'", "2,3"});
  // Same element count, different shape.
  std::string x2 = put("x2.npy", npyFloat32("(10, 1)", std::vector<float>(10, 0.25f)));
  expectCleanError(runTool({"-model=" + lsModel(), "-input=x=" + x2}), {x2, "shape", "'x'", "10,1"});
}

TEST_F(ModelRunner, InputNpyWrongDtype) {
  std::string x = put("x.npy", npyBytes("<f8", "(1, 10)", rawBytes(std::vector<double>(10, 0.5))));
  expectFileError(runTool({"-model=" + lsModel(), "-input=x=" + x}), x, {"float64"});
}

TEST_F(ModelRunner, CorruptNpyBadMagic) {
  std::string bytes = npyFloat32("(1, 10)", std::vector<float>(10, 0.5f));
  bytes[1] = 'X'; // "\x93NUMPY" -> "\x93XUMPY"
  std::string x = put("x.npy", bytes);
  expectFileError(runTool({"-model=" + lsModel(), "-input=x=" + x}), x, {});
}

TEST_F(ModelRunner, CorruptNpyTruncatedData) {
  std::string bytes = npyFloat32("(1, 10)", std::vector<float>(10, 0.5f));
  std::string x = put("x.npy", bytes.substr(0, bytes.size() - 12));
  expectFileError(runTool({"-model=" + lsModel(), "-input=x=" + x}), x, {});
  // Truncated inside the header.
  std::string h = put("h.npy", bytes.substr(0, 40));
  expectFileError(runTool({"-model=" + lsModel(), "-input=x=" + h}), h, {});
}

TEST_F(ModelRunner, InputNameNotInModel) {
  expectCleanError(runTool({"-model=" + lsModel(), "-input=nosuch=" + lsInput()}), {"nosuch"});
}

TEST_F(ModelRunner, ModelWithInputsButNoInputGiven) {
  RunResult r = runTool({"-model=" + lsModel()});
  expectCleanError(r, {"input", "'x'"});
}

TEST_F(ModelRunner, UnknownBackend) {
  RunResult r = runTool({"-model=" + lsModel(), "-input=" + lsInput(), "-backend=Nope"});
  expectCleanError(r, {"Nope", "Interpreter"});
}

TEST_F(ModelRunner, SymbolicDimNeedsBinding) {
  RunResult r = runTool({"-model=" + kSymbolicBatch, "-dump-graph"});
  expectFileError(r, kSymbolicBatch, {"symbolic", "'N'"});
}

TEST_F(ModelRunner, SymbolicDimDefined) {
  RunResult r = runTool({"-model=" + kSymbolicBatch, "-onnx-define-symbol=N,3", "-dump-graph"});
  EXPECT_SUCCESS(r);
  EXPECT_NE(r.out.find("3 x 4"), std::string::npos) << r.describe();
  // Space form, and a batch-3 input that agrees with the binding runs.
  std::string x = put("x3.npy", npyFloat32("(3, 4)", std::vector<float>(12, -1.0f)));
  r = runTool({"-model", kSymbolicBatch, "-onnx-define-symbol", "N,3", "-input", x});
  EXPECT_SUCCESS(r);
  EXPECT_NE(r.out.find("output 'y'"), std::string::npos) << r.describe();
}

TEST_F(ModelRunner, SymbolicDimConflictsWithInputShape) {
  std::string x = put("x5.npy", npyFloat32("(5, 4)", std::vector<float>(20, 1.0f)));
  RunResult r = runTool({"-model=" + kSymbolicBatch, "-onnx-define-symbol=N,3", "-input=" + x});
  expectCleanError(r, {x, "shape", "5,4", "'N'"});
}

//===----------------------------------------------------------------------------------------===//
// 5. -output-dir file names
//===----------------------------------------------------------------------------------------===//

TEST_F(ModelRunner, OutputDirLegalizesNames) {
  std::string model = put("slash.onnxtxt",
                          textModel(node("r", "Relu", {"x"}, {"out/put:0"}) +
                                    valueInfo("input", "x", {"2", "3"}) +
                                    valueInfo("output", "out/put:0", {"2", "3"})));
  std::string x = put("x.npy", npyFloat32("(2, 3)", {-1, 2, -3, 4, -5, 6}));
  std::string out = tmp + "/outdir";
  RunResult r = runTool({"-model=" + model, "-input=" + x, "-output-dir=" + out});
  EXPECT_SUCCESS(r);
  ASSERT_TRUE(fs::exists(out + "/out_put_0.npy")) << r.describe();
  EXPECT_FALSE(fs::exists(out + "/out")) << "the output name must not create a subdirectory";
  std::vector<float> want = {0, 2, 0, 4, 0, 6};
  EXPECT_EQ(readNpyFloat32(out + "/out_put_0.npy").values, want);
}

} // namespace
