#include "TraceEvents.h"
#include "ToolReports.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace ember {
namespace tools {

namespace {

// The strings are copied (str()): a json::Value made from a StringRef only refers to it.

/// A metadata event ("ph": "M") naming the process or a thread.
json::Object nameEvent(StringRef which, int64_t pid, int64_t tid, StringRef name) {
  return json::Object{{"ph", "M"}, {"name", which.str()}, {"pid", pid}, {"tid", tid},
                      {"ts", 0},   {"args", json::Object{{"name", name.str()}}}};
}

/// A complete event ("ph": "X"): \p name in category \p cat, times in microseconds.
json::Object spanEvent(StringRef name, StringRef cat, double ts, double dur, int64_t pid,
                       int64_t tid, json::Object args) {
  return json::Object{{"ph", "X"}, {"name", name.str()}, {"cat", cat.str()},
                      {"ts", ts},   {"dur", dur},            {"pid", pid},
                      {"tid", tid}, {"args", std::move(args)}};
}

} // namespace

Expected<std::unique_ptr<TraceEvents>> TraceEvents::create(StringRef path,
                                                          StringRef processName) {
  std::error_code ec;
  auto file = std::make_unique<ToolOutputFile>(path, ec, sys::fs::OF_Text);
  if (ec)
    return makeError("-trace=" + path + ": " + ec.message());
  return std::unique_ptr<TraceEvents>(new TraceEvents(std::move(file), processName));
}

TraceEvents::TraceEvents(std::unique_ptr<ToolOutputFile> file, StringRef processName)
    : file_(std::move(file)), pid_(int64_t(sys::Process::getProcessId())),
      tid_(int64_t(get_threadid())) {
  events_.push_back(nameEvent("process_name", pid_, tid_, processName));
  events_.push_back(nameEvent("thread_name", pid_, tid_, "main"));
}

TraceEvents::~TraceEvents() = default;

void TraceEvents::addPhases(double importMillis, const PhaseTimes &phases) {
  events_.push_back(spanEvent("import", "compile", 0, importMillis * 1000, pid_, tid_, {}));
  // Where the next phase at each depth starts: a phase's parts start at the phase's start.
  std::vector<double> next = {importMillis * 1000};
  for (const auto &[phase, ms] : phases) {
    StringRef name(phase);
    size_t depth = (name.size() - name.ltrim(' ').size()) / 2;
    next.resize(depth + 1, next.back());
    double start = next[depth];
    events_.push_back(
        spanEvent(name.ltrim(' '), "compile", start, ms * 1000, pid_, tid_, {}));
    next[depth] = start + ms * 1000;
    next.resize(depth + 1);
    next.push_back(start); // its parts, if any follow
  }
}

/// An instruction's event, \p millis long from \p ts on thread \p tid.
json::Object TraceEvents::instructionEvent(const Instruction &I, double ts, double millis,
                                           int64_t tid) {
  json::Array outputs;
  // As -profile prints it: an instruction that names no outputs writes its operand 0.
  unsigned numOutputs = I.getNumOutputs() ? I.getNumOutputs() : std::min(1u, I.getNumOperands());
  for (unsigned r = 0; r < numOutputs; ++r)
    outputs.push_back(I.getOutput(r)->getType().str());
  json::Object args{{"kind", I.getKindName().str()}, {"outputs", std::move(outputs)}};
  if (double gflops = productGflops(I, millis))
    args["GFLOP/s"] = gflops;
  return spanEvent(I.getName(), "instruction", ts, millis * 1000, pid_, tid, std::move(args));
}

void TraceEvents::addRun(unsigned index, double startMicros, double runMicros,
                         ArrayRef<InstructionTime> before, ArrayRef<InstructionTime> after,
                         ArrayRef<TraceSpan> spans, uint64_t originNanos) {
  events_.push_back(spanEvent(("run " + Twine(index)).str(), "run", startMicros, runMicros,
                              pid_, tid_, json::Object{{"index", int64_t(index)}}));
  if (!spans.empty()) {
    for (const TraceSpan &s : spans) {
      double ts = (double(s.startNanos) - double(originNanos)) / 1000;
      double millis = double(s.endNanos - s.startNanos) / 1e6;
      // Worker k's tid follows the caller's (a number of the trace's own, not the OS's).
      int64_t tid = tid_ + s.thread;
      if (s.thread > 0) {
        if (namedWorkers_.size() <= size_t(s.thread))
          namedWorkers_.resize(size_t(s.thread) + 1);
        if (!namedWorkers_[size_t(s.thread)])
          events_.push_back(nameEvent("thread_name", pid_, tid,
                                      ("worker " + Twine(s.thread)).str()));
        namedWorkers_[size_t(s.thread)] = true;
      }
      if (s.part < 0)
        events_.push_back(instructionEvent(*s.instr, ts, millis, tid));
      else
        events_.push_back(spanEvent(s.instr->getName(), "part", ts, millis * 1000, pid_, tid,
                                    json::Object{{"part", int64_t(s.part)}}));
    }
    return;
  }
  double ts = startMicros;
  for (size_t i = 0; i < after.size(); ++i) {
    double millis = after[i].millis - (i < before.size() ? before[i].millis : 0);
    if (millis <= 0)
      continue; // not reached in this run (an If's other branch)
    events_.push_back(instructionEvent(*after[i].instr, ts, millis, tid_));
    ts += millis * 1000;
  }
}

Error TraceEvents::write() {
  json::Value file = json::Object{{"traceEvents", std::move(events_)}, {"displayTimeUnit", "ms"}};
  raw_fd_ostream &os = file_->os();
  os << formatv("{0:1}", file) << "\n";
  os.close();
  if (os.has_error())
    return makeError("-trace=" + file_->getFilename() + ": " + os.error().message());
  file_->keep();
  return Error::success();
}

} // namespace tools
} // namespace ember
