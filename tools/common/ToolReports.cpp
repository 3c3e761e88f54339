#include "ToolReports.h"
#include "ToolFlags.h"

#include "ember/Graph/ControlFlow.h"
#include "ember/Support/Error.h"
#include "ember/Support/PassManager.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace llvm;

namespace ember {
namespace tools {

Error printCompileReports(const CompileSummary &s, double loadMillis, const Function &F,
                          const IRFunction &IR) {
  if (FLAGS_print_pass_stats) {
    outs() << "graph passes: " << s.nodesBefore << " nodes before, " << s.nodesAfter
           << " after\n";
    auto printStats = [](const std::vector<PassStats> &runs) {
      for (const PassStats &p : runs)
        outs() << format("  %-24s %6zu -> %-6zu %8.3f ms%s\n", p.pass.c_str(), p.sizeBefore,
                         p.sizeAfter, p.millis, p.changed ? "  changed" : "");
    };
    printStats(s.passStats);
    outs() << "IR passes: instructions before and after\n";
    printStats(s.irPassStats);
  }
  if (FLAGS_print_memory)
    IR.printMemorySummary(outs());
  for (const std::string &line : s.quantization.lines)
    outs() << "quantization: " << line << "\n";
  if (FLAGS_time_phases) {
    double total = loadMillis;
    outs() << "compile phases:\n";
    outs() << format("  %-20s %10.1f ms\n", static_cast<const char *>("import"), loadMillis);
    for (const auto &[phase, ms] : s.phaseMillis) {
      outs() << format("  %-20s %10.1f ms\n", phase.c_str(), ms);
      if (!StringRef(phase).starts_with(" ")) // indented: part of the phase above
        total += ms;
    }
    outs() << format("  %-20s %10.1f ms\n", static_cast<const char *>("total"), total);
  }
  if (FLAGS_dump_graph)
    printGraph(F, outs());
  if (!FLAGS_dump_graph_DAG.empty()) {
    std::error_code ec;
    raw_fd_ostream os(FLAGS_dump_graph_DAG, ec, sys::fs::OF_Text);
    if (ec)
      return makeError(FLAGS_dump_graph_DAG + ": " + ec.message());
    F.dumpDAG(os);
  }
  if (FLAGS_dump_ir)
    IR.dump(outs());
  return Error::success();
}

void printGraph(const Function &F, raw_ostream &os) {
  F.dump(os);
  for (const Function *body : nestedBodies(F)) // If's branches, Loop bodies
    body->dump(os);
}

double productGflops(const Instruction &I, double millis) {
  int64_t flops = productFlops(I);
  return flops && millis > 0 ? double(flops) / (millis * 1e6) : 0;
}

void printProfile(const CompiledModel &cm, unsigned runs) {
  std::vector<InstructionTime> rows = cm.getProfile();
  double total = 0;
  for (const InstructionTime &r : rows)
    total += r.millis;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const InstructionTime &a, const InstructionTime &b) {
                     return a.millis > b.millis;
                   });
  outs() << format("profile: %.3f ms per run over %u run(s), by instruction (slowest first)\n",
                   runs ? total / runs : 0.0, runs);
  for (const InstructionTime &r : rows) {
    const Instruction &I = *r.instr;
    double millis = runs ? r.millis / runs : 0.0;
    outs() << format("  %9.3f ms %5.1f%%  ", millis, total > 0 ? 100 * r.millis / total : 0.0);
    // Products: their rate, and with -peak-gflops its share of the machine's peak.
    double gflops = productGflops(I, millis);
    if (gflops > 0)
      outs() << format("%7.1f GFLOP/s ", gflops);
    if (gflops > 0 && FLAGS_peak_gflops > 0)
      outs() << format("%4.0f%% of peak ", 100 * gflops / FLAGS_peak_gflops);
    outs() << I.getKindName() << " %" << I.getName();
    if (I.getNumOperands())
      outs() << " -> " << I.getOperand(0)->getType().str();
    outs() << "\n";
  }
}

std::pair<size_t, size_t> topKItemsAndClasses(const Tensor &scores) {
  const DimsVec &dims = scores.getType().dims;
  size_t items = dims.size() >= 2 ? size_t(dims[0]) : 1;
  return {items, items ? scores.numElements() / items : 0};
}

void printTopK(StringRef name, const Tensor &scores, size_t k, ArrayRef<std::string> labels,
               ArrayRef<std::string> itemNames) {
  auto [items, classes] = topKItemsAndClasses(scores);
  k = std::min(k, classes);
  std::vector<size_t> order(classes);
  for (size_t item = 0; item < items; ++item) {
    size_t base = item * classes;
    for (size_t i = 0; i < classes; ++i)
      order[i] = i;
    auto score = [&](size_t c) { // a NaN ranks last, keeping the order strict
      double v = scores.elementAsDouble(base + c);
      return std::isnan(v) ? -HUGE_VAL : v;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return score(a) > score(b); });
    outs() << "top " << k << " of output '" << name << "' for item " << item;
    if (itemNames.size() == items)
      outs() << " (" << itemNames[item] << ")";
    outs() << ":\n";
    for (size_t r = 0; r < k; ++r) {
      size_t c = order[r];
      outs() << format("  %zu. class %zu score %.7g", r + 1, c,
                       scores.elementAsDouble(base + c));
      if (!labels.empty())
        outs() << " " << labels[c];
      outs() << "\n";
    }
  }
  outs().flush();
}

} // namespace tools
} // namespace ember
