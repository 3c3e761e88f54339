// Checking an ONNX model with the onnx package's checker, tolerating (unless -strict-onnx) the
// findings that onnxruntime and Glow load anyway because the model still means one thing.
//
// The checker throws on its first finding, so a finding cannot be tolerated by catching it and
// going on: that would skip everything the checker had not reached yet. Instead the findings
// recognized here are looked for first, repaired in a copy of the model, and the checker runs on
// the copy, so it still checks all the rest. The importer reads the original model; every
// repair is one the importer does not need (it never reads a graph's name or an output's
// declared type, and it reads initializers whether or not they are listed as inputs).
#include "ONNXChecker.h"
#include "OpContext.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/StringSet.h"

#include <onnx/checker.h>

#include <functional>

using namespace llvm;

namespace ember {

namespace {

/// The checker's message on one line: "what (context)".
std::string checkerMessage(StringRef what) {
  SmallVector<StringRef, 4> lines;
  what.split(lines, '\n', -1, false);
  std::string msg, context;
  for (StringRef line : lines) {
    line = line.trim();
    if (line.consume_front("==> Context:"))
      context += (context.empty() ? "" : "; ") + line.trim().str();
    else if (!line.empty())
      msg += (msg.empty() ? "" : " ") + line.str();
  }
  return context.empty() ? msg : msg + " (" + context + ")";
}

Error runChecker(const onnx::ModelProto &model) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return makeError("invalid ONNX model: " + checkerMessage(e.what()));
  }
  return Error::success();
}

/// The findings tolerated, in the order their warnings are printed. Each is refused by the
/// checker (onnx 1.12; its message in the comment) although the model has one meaning, and
/// onnxruntime loads it. A finding that could change what the model computes is not here.
enum Finding {
  UnnamedGraph,            // "Field 'name' of 'graph' is required to be non-empty."
  UntypedOutput,           // "Field 'type' of 'value_info' is required but missing." (and
  UntypedInitializerInput, //  'elem_type', 'shape', "Unrecognized type value case")
  InitializerNotInput,     // "<name> in initializer but not in graph input" (IR version <= 3)
  NewerIRVersion,          // "Your model ir_version is higher than the checker's."
  AliasedDefaultDomain,    // "No opset import for domain ''", "No Op registered for ..."
  DuplicateMetadataKey,    // "Your model has duplicate keys in metadata_props."
  NumFindings
};

struct FindingText {
  const char *what, *why;
};
const FindingText kFindingText[NumFindings] = {
    {"graph without a name", "ember does not use graph names"},
    {"graph output without a complete tensor type",
     "an output takes the type of the value computed for it"},
    {"graph input without a complete tensor type",
     "the input is an initializer and takes the initializer's type"},
    {"initializer not listed among its graph's inputs, as IR version 3 requires",
     "IR version 4 dropped that rule; the initializer is a constant either way"},
    {"IR version newer than this ONNX checker knows",
     "the element types newer versions add are refused when read"},
    {"the default operator domain spelled 'ai.onnx'",
     "ONNX names the default domain both '' and 'ai.onnx'"},
    {"duplicate key in metadata_props", "ember does not read metadata"},
};

/// Where a subgraph sits, one step per nesting level: a node of the enclosing graph, one of its
/// attributes, and the graph in it (-1: the attribute's `g`, else an index into `graphs`).
struct GraphStep {
  int node, attr, graph;
};
using GraphPath = std::vector<GraphStep>;

onnx::GraphProto &graphAt(onnx::ModelProto &model, const GraphPath &path) {
  onnx::GraphProto *g = model.mutable_graph();
  for (const GraphStep &s : path) {
    onnx::AttributeProto *a = g->mutable_node(s.node)->mutable_attribute(s.attr);
    g = s.graph < 0 ? a->mutable_g() : a->mutable_graphs(s.graph);
  }
  return *g;
}

/// What the checker wants of a main graph input or output and \p vi lacks: a type, and for a
/// tensor type its element type and shape. Other kinds of type (sequence, map) are left alone.
bool lacksType(const onnx::ValueInfoProto &vi) {
  const onnx::TypeProto &t = vi.type();
  if (t.value_case() == onnx::TypeProto::VALUE_NOT_SET)
    return true;
  return t.has_tensor_type() && (!t.tensor_type().has_elem_type() || !t.tensor_type().has_shape());
}

onnx::TypeProto typeOf(const onnx::TensorProto &init) {
  onnx::TypeProto t;
  onnx::TypeProto::Tensor *tt = t.mutable_tensor_type();
  tt->set_elem_type(init.data_type());
  onnx::TensorShapeProto *shape = tt->mutable_shape();
  for (int64_t d : init.dims())
    shape->add_dim()->set_dim_value(d);
  return t;
}

/// The initializers of \p g of the element types of IR version 9 and 10 that ember reads (float8,
/// int4, uint4, float4: ONNXTensor.cpp) retyped UINT8 for the checker, which knows them by
/// number only and refuses them: their bytes are there either way, ember's reader checks them
/// against their dims, and a model with them has the IR version the checker does not know.
void narrowInitializersAsBytes(onnx::GraphProto &g) {
  for (onnx::TensorProto &init : *g.mutable_initializer())
    if (init.data_type() >= 17 && init.data_type() <= 23)
      init.set_data_type(onnx::TensorProto::UINT8);
}

struct Repair {
  Finding finding;
  std::string where;
  std::function<void(onnx::ModelProto &)> apply; ///< empty when another repair covers it
};

/// Finds the tolerated findings in a model and how to repair each in a copy.
class Scanner {
  const onnx::ModelProto &model_;

  void add(Finding f, std::string where, std::function<void(onnx::ModelProto &)> apply) {
    repairs.push_back({f, std::move(where), std::move(apply)});
  }
  void scanGraph(const onnx::GraphProto &g, const GraphPath &path, const std::string &label);

public:
  std::vector<Repair> repairs;

  explicit Scanner(const onnx::ModelProto &model) : model_(model) {}

  void scan() {
    if (model_.ir_version() > onnx::IR_VERSION)
      add(NewerIRVersion,
          "ir_version " + std::to_string(model_.ir_version()) +
              ", checked by the rules of IR version " + std::to_string(onnx::IR_VERSION),
          [](onnx::ModelProto &m) {
            m.set_ir_version(onnx::IR_VERSION);
            narrowInitializersAsBytes(*m.mutable_graph());
          });
    // The importer has refused two imports of the default domain at different opsets already,
    // so renaming one leaves no doubt which opset the nodes mean.
    for (int i = 0; i < model_.opset_import_size(); ++i)
      if (model_.opset_import(i).domain() == "ai.onnx")
        add(AliasedDefaultDomain, "opset_import",
            [i](onnx::ModelProto &m) { m.mutable_opset_import(i)->set_domain(""); });
    StringSet<> keys, reported;
    bool dedupeAdded = false;
    for (const auto &prop : model_.metadata_props()) {
      if (keys.insert(prop.key()).second || !reported.insert(prop.key()).second)
        continue;
      std::function<void(onnx::ModelProto &)> dedupe;
      if (!dedupeAdded)
        dedupe = [](onnx::ModelProto &m) { // keep each key's first entry
          google::protobuf::RepeatedPtrField<onnx::StringStringEntryProto> kept;
          StringSet<> seen;
          for (const auto &p : m.metadata_props())
            if (seen.insert(p.key()).second)
              *kept.Add() = p;
          m.mutable_metadata_props()->Swap(&kept);
        };
      add(DuplicateMetadataKey, "'" + prop.key() + "'", std::move(dedupe));
      dedupeAdded = true;
    }
    scanGraph(model_.graph(), {}, "the main graph");
  }
};

void Scanner::scanGraph(const onnx::GraphProto &g, const GraphPath &path,
                        const std::string &label) {
  bool main = path.empty();
  std::string in = main ? "" : " in " + label;
  if (g.name().empty())
    add(UnnamedGraph, label, [path, main](onnx::ModelProto &m) {
      graphAt(m, path).set_name(main ? "main" : "subgraph");
    });
  // The checker relaxes its type rules for subgraphs' inputs and outputs.
  if (main) {
    for (int i = 0; i < g.output_size(); ++i)
      if (!g.output(i).name().empty() && lacksType(g.output(i)))
        add(UntypedOutput, "'" + g.output(i).name() + "'", [i](onnx::ModelProto &m) {
          // The copy only has to pass the checker: an undefined element type does, and claims
          // nothing about the output.
          onnx::TypeProto *t = m.mutable_graph()->mutable_output(i)->mutable_type();
          t->Clear();
          t->mutable_tensor_type()->set_elem_type(onnx::TensorProto::UNDEFINED);
          t->mutable_tensor_type()->mutable_shape();
        });
    // An input without a type that is no initializer stays refused: nothing says what it is.
    for (int i = 0; i < g.input_size(); ++i) {
      if (!lacksType(g.input(i)))
        continue;
      for (int j = 0; j < g.initializer_size(); ++j)
        if (g.initializer(j).name() == g.input(i).name()) {
          add(UntypedInitializerInput, "'" + g.input(i).name() + "'",
              [i, j](onnx::ModelProto &m) {
                onnx::GraphProto &mg = *m.mutable_graph();
                *mg.mutable_input(i)->mutable_type() = typeOf(mg.initializer(j));
              });
          break;
        }
    }
  }
  if (model_.ir_version() <= 3) {
    StringSet<> inputs;
    for (const auto &vi : g.input())
      inputs.insert(vi.name());
    for (int j = 0; j < g.initializer_size(); ++j) {
      const std::string &name = g.initializer(j).name();
      if (name.empty() || inputs.count(name)) // an unnamed initializer stays refused
        continue;
      add(InitializerNotInput, "'" + name + "'" + in, [path, j](onnx::ModelProto &m) {
        onnx::GraphProto &mg = graphAt(m, path);
        onnx::ValueInfoProto *vi = mg.add_input();
        vi->set_name(mg.initializer(j).name());
        *vi->mutable_type() = typeOf(mg.initializer(j));
      });
    }
  }
  for (int j = 0; j < g.node_size(); ++j) {
    const onnx::NodeProto &n = g.node(j);
    if (n.domain() == "ai.onnx")
      add(AliasedDefaultDomain, onnxNodeLabel(n) + in, [path, j](onnx::ModelProto &m) {
        graphAt(m, path).mutable_node(j)->set_domain("");
      });
    for (int k = 0; k < n.attribute_size(); ++k) {
      const onnx::AttributeProto &a = n.attribute(k);
      GraphPath sub = path;
      sub.push_back({j, k, -1});
      if (a.has_g())
        scanGraph(a.g(), sub, "graph '" + a.name() + "' of " + onnxNodeLabel(n) + in);
      for (int l = 0; l < a.graphs_size(); ++l) {
        sub.back().graph = l;
        scanGraph(a.graphs(l), sub,
                  "graph '" + a.name() + "'[" + std::to_string(l) + "] of " + onnxNodeLabel(n) +
                      in);
      }
    }
  }
}

/// "a, b, c" with at most a few items, then "and N more".
std::string listOf(const std::vector<const std::string *> &items) {
  constexpr size_t kShown = 5;
  std::string s;
  for (size_t i = 0; i < items.size() && i < kShown; ++i)
    s += (i ? ", " : "") + *items[i];
  if (items.size() > kShown)
    s += " and " + std::to_string(items.size() - kShown) + " more";
  return s;
}


/// The checker knows ai.onnx.ml up to opset 3; these operators changed after it (LabelEncoder
/// 4's tensor attributes, TreeEnsemble 5, the deprecation of the older ensembles at 5), so a
/// model importing a newer ai.onnx.ml has their nodes checked by ember's loaders only.
constexpr int64_t kCheckerMLOpset = 3;
bool mlChangedSinceChecker(const onnx::ModelProto &m, const onnx::NodeProto &n) {
  if (n.domain() != "ai.onnx.ml")
    return false;
  int64_t ml = nodeOpset(m, 0, n);
  const std::pair<StringRef, int64_t> changed[] = {{"LabelEncoder", 4},
                                                    {"TreeEnsemble", 5},
                                                    {"TreeEnsembleRegressor", 5},
                                                    {"TreeEnsembleClassifier", 5}};
  for (const auto &[op, version] : changed)
    if (n.op_type() == op && version > kCheckerMLOpset && version <= ml)
      return true;
  return false;
}

/// Whether the checker would misjudge \p n of \p m (default-domain opset \p opset): its
/// operator changed its signature since the opset the checker knows (kCheckerOpset, or
/// kCheckerMLOpset for ai.onnx.ml), or a subgraph holds such a node.
bool beyondChecker(const onnx::ModelProto &m, const onnx::NodeProto &n, int64_t opset) {
  if (isDefaultDomain(n.domain()) ? signatureChangedSince(n.op_type(), kCheckerOpset, opset)
                                  : mlChangedSinceChecker(m, n))
    return true;
  auto anyBeyond = [&](const onnx::GraphProto &g) {
    for (const auto &sub : g.node())
      if (beyondChecker(m, sub, opset))
        return true;
    return false;
  };
  for (const auto &a : n.attribute()) {
    if (a.has_g() && anyBeyond(a.g()))
      return true;
    for (const auto &g : a.graphs())
      if (anyBeyond(g))
        return true;
  }
  return false;
}

/// Rewrites \p m (a copy) for the checker: imports kCheckerOpset, and each node of the main
/// graph that is beyond the checker becomes graph inputs for its outputs (the copy is only
/// checked, never run, so their element type is a placeholder). Returns the nodes taken out.
std::vector<std::string> withinChecker(onnx::ModelProto &m, int64_t opset) {
  for (auto &o : *m.mutable_opset_import())
    if (isDefaultDomain(o.domain()) && o.version() > kCheckerOpset) // not for ai.onnx.ml alone
      o.set_version(kCheckerOpset);
  std::vector<std::string> taken;
  onnx::GraphProto &g = *m.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (auto &n : *g.mutable_node()) {
    if (!beyondChecker(m, n, opset)) {
      *kept.Add() = std::move(n);
      continue;
    }
    taken.push_back(onnxNodeLabel(n));
    for (const std::string &out : n.output()) {
      if (out.empty())
        continue;
      onnx::ValueInfoProto *vi = g.add_input();
      vi->set_name(out);
      // The checker wants a graph input's shape as well as its element type; a scalar's will do.
      onnx::TypeProto::Tensor *tt = vi->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(onnx::TensorProto::FLOAT);
      tt->mutable_shape();
    }
  }
  g.mutable_node()->Swap(&kept);
  return taken;
}

} // namespace

Error checkONNXModel(const onnx::ModelProto &model, int64_t opset, bool strict,
                     std::vector<std::string> &warnings) {
  Scanner scanner(model);
  if (!strict)
    scanner.scan();
  bool newer = opset > kCheckerOpset;
  for (const auto &n : model.graph().node())
    newer |= beyondChecker(model, n, opset);
  if (scanner.repairs.empty() && !newer)
    return runChecker(model);
  // Copied only now: a model with large weights and nothing to repair is not copied.
  onnx::ModelProto copy(model);
  for (const Repair &r : scanner.repairs)
    if (r.apply)
      r.apply(copy);
  std::vector<std::string> unchecked;
  if (newer)
    unchecked = withinChecker(copy, opset);
  EMBER_TRY(runChecker(copy));
  for (int f = 0; f < NumFindings; ++f) {
    std::vector<const std::string *> where;
    for (const Repair &r : scanner.repairs)
      if (r.finding == f)
        where.push_back(&r.where);
    if (!where.empty())
      warnings.push_back(std::string("ONNX checker finding tolerated: ") + kFindingText[f].what +
                         ": " + listOf(where) + " (" + kFindingText[f].why +
                         "; -strict-onnx refuses it)");
  }
  if (strict && !unchecked.empty()) {
    std::vector<const std::string *> where;
    for (const std::string &u : unchecked)
      where.push_back(&u);
    warnings.push_back("not checked by the ONNX checker, which knows opsets up to " +
                       std::to_string(kCheckerOpset) + " (the model's is " +
                       std::to_string(opset) + "): " + std::to_string(unchecked.size()) +
                       " node(s) of operators changed since, checked by ember's loaders only: " +
                       listOf(where));
  }
  return Error::success();
}

} // namespace ember
