// The checks of a Chrome Trace Event file (the JSON Object Format chrome://tracing and
// ui.perfetto.dev load) that model-runner -trace and utils/bundle-trace.py share: the fields
// the format requires of every event, the runs, each computing instruction once in each run,
// and each thread's part of a threaded step nested in its instruction's span.
#ifndef EMBER_TESTS_TOOLS_TRACECHECK_H
#define EMBER_TESTS_TOOLS_TRACECHECK_H

#include <gtest/gtest.h>

#include "llvm/Support/JSON.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tracecheck {

struct Span {
  std::string name;
  double ts, dur;
  int64_t tid;
  llvm::json::Object args;
  bool within(const Span &outer) const { // 1 ns of slack: times are printed in microseconds
    return ts >= outer.ts - 1e-3 && ts + dur <= outer.ts + outer.dur + 1e-3;
  }
};

/// A trace file's events by category ("cat"): compile, run, instruction, part.
struct Trace {
  std::vector<Span> phases, runs, instrs, parts;
  std::map<std::string, int> named; ///< metadata events: process_name, thread_name
};

/// Parses \p text into \p t, failing unless every event has ph, name, pid and tid, metadata
/// events ("M") an args.name, and complete events ("X") a non-negative ts and dur.
inline void readTrace(const std::string &text, Trace &t) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *top = parsed->getAsObject();
  ASSERT_TRUE(top);
  EXPECT_EQ(top->getString("displayTimeUnit").value_or(""), "ms");
  const llvm::json::Array *events = top->getArray("traceEvents");
  ASSERT_TRUE(events);
  for (const llvm::json::Value &v : *events) {
    const llvm::json::Object *e = v.getAsObject();
    ASSERT_TRUE(e);
    std::string ph = e->getString("ph").value_or("").str();
    std::string name = e->getString("name").value_or("").str();
    ASSERT_FALSE(name.empty());
    ASSERT_TRUE(e->getInteger("pid") && e->getInteger("tid")) << name;
    if (ph == "M") {
      const llvm::json::Object *args = e->getObject("args");
      ASSERT_TRUE(args && args->getString("name")) << name;
      ++t.named[name];
      continue;
    }
    ASSERT_EQ(ph, "X") << name;
    std::optional<double> ts = e->getNumber("ts"), dur = e->getNumber("dur");
    ASSERT_TRUE(ts && dur) << name;
    EXPECT_GE(*ts, 0) << name;
    EXPECT_GE(*dur, 0) << name;
    const llvm::json::Object *args = e->getObject("args");
    Span s{name, *ts, *dur, *e->getInteger("tid"), args ? *args : llvm::json::Object()};
    std::string cat = e->getString("cat").value_or("").str();
    if (cat == "compile")
      t.phases.push_back(std::move(s));
    else if (cat == "run")
      t.runs.push_back(std::move(s));
    else if (cat == "instruction")
      t.instrs.push_back(std::move(s));
    else if (cat == "part")
      t.parts.push_back(std::move(s));
    else
      ADD_FAILURE() << "event " << name << " of category '" << cat << "'";
  }
}

/// Each run holds each of \p names once, within its span, and nothing else.
inline void expectEachInstructionOncePerRun(const Trace &t, const std::set<std::string> &names) {
  ASSERT_FALSE(t.runs.empty());
  for (const Span &run : t.runs) {
    std::map<std::string, int> seen;
    for (const Span &i : t.instrs)
      if (i.within(run))
        ++seen[i.name];
    for (const std::string &name : names)
      EXPECT_EQ(seen[name], 1) << "%" << name << " in the run at " << run.ts;
  }
  EXPECT_EQ(t.instrs.size(), t.runs.size() * names.size());
}

/// Every part lies within the span of its instruction's event, on a thread a thread_name event
/// names; in some run an instruction's parts ran on \p threads tids, and in none on more. (A
/// worker the OS runs late leaves its part to the caller, so not every run shows them all.)
inline void expectPartsNestInTheirInstructions(const Trace &t, size_t threads) {
  ASSERT_FALSE(t.parts.empty());
  EXPECT_EQ(t.named.count("thread_name") ? size_t(t.named.at("thread_name")) : 0, threads);
  for (const Span &p : t.parts) {
    bool nested = false;
    for (const Span &i : t.instrs)
      nested = nested || (i.name == p.name && p.within(i));
    EXPECT_TRUE(nested) << "part of %" << p.name << " at " << p.ts << " on tid " << p.tid
                        << " outside its instruction";
  }
  size_t most = 0;
  for (const Span &run : t.runs) {
    std::map<std::string, std::set<int64_t>> tids;
    for (const Span &p : t.parts)
      if (p.within(run))
        tids[p.name].insert(p.tid);
    for (const auto &[name, set] : tids) {
      EXPECT_LE(set.size(), threads) << "%" << name << " in the run at " << run.ts;
      most = std::max(most, set.size());
    }
  }
  EXPECT_EQ(most, threads);
}

} // namespace tracecheck

#endif
