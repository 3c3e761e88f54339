// conformance: runs ONNX-style test cases (a folder per case with model.onnx and
// test_data_set_N/) on a backend and reports pass / wrong / refused / crashed per case.
// Each case runs in a child process so a crash or hang is counted, not fatal.
#include "../common/ModelTestCase.h"
#include "../common/ToolSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sys/wait.h>
#include <unistd.h>

using namespace ember;
using namespace llvm;

DEFINE_string(suite, "/usr/share/libonnx-testdata/data/node",
              "A folder of test cases, or several separated by ','");
DEFINE_string(filter, "", "Only cases whose name contains this");
DEFINE_int32(timeout, 60, "Seconds per case before it counts as a hang");
DEFINE_bool(verbose, false,
            "Print the reason for every case that does not pass, and the largest absolute "
            "error of every case that does");
DEFINE_double(atol, 1e-5, "Absolute tolerance for floats: |got - want| <= atol + rtol * |want|");
DEFINE_double(rtol, 1e-3, "Relative tolerance for floats: |got - want| <= atol + rtol * |want|");

namespace {

struct Outcome {
  std::string status, detail;
  double maxAbsErr = 0;
};

/// Runs one case in a child; the child reports "status\tmaxAbsErr\tdetail" through a pipe.
Outcome runIsolated(const std::string &dir) {
  int fds[2];
  if (pipe(fds) != 0)
    return {"crashed", "pipe failed"};
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(FLAGS_timeout);
    tools::Tolerance tol;
    tol.atol = FLAGS_atol;
    tol.rtol = FLAGS_rtol;
    tools::CaseResult r = tools::runModelTestCase(dir, FLAGS_backend, tol);
    const char *status = r.status == tools::CaseResult::Pass    ? "pass"
                         : r.status == tools::CaseResult::Wrong ? "wrong"
                                                                : "refused";
    std::string detail = r.detail;
    std::replace(detail.begin(), detail.end(), '\n', ' ');
    char err[32];
    snprintf(err, sizeof(err), "%.3g", r.maxAbsErr);
    std::string line = std::string(status) + "\t" + err + "\t" + detail;
    (void)!write(fds[1], line.data(), line.size());
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    out.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status))
    return {WTERMSIG(status) == SIGALRM ? "hung" : "crashed",
            "signal " + std::to_string(WTERMSIG(status))};
  size_t tab = out.find('\t');
  size_t tab2 = tab == std::string::npos ? tab : out.find('\t', tab + 1);
  if (tab2 == std::string::npos)
    return {"crashed", "no result"};
  return {out.substr(0, tab), out.substr(tab2 + 1),
          std::strtod(out.substr(tab + 1, tab2 - tab - 1).c_str(), nullptr)};
}

} // namespace

int main(int argc, char **argv) {
  tools::parseCommandLine(argc, argv,
                          "conformance: run ONNX backend test cases on a backend.\n"
                          "  conformance -suite=/usr/share/libonnx-testdata/data/node");
  std::map<std::string, int> counts;
  SmallVector<StringRef, 4> suites;
  StringRef(FLAGS_suite).split(suites, ',', -1, false);
  for (StringRef suite : suites) {
    std::vector<std::string> dirs;
    std::error_code ec;
    for (sys::fs::directory_iterator it(suite, ec), end; it != end && !ec; it.increment(ec))
      if (sys::fs::is_directory(it->path()) &&
          StringRef(it->path()).contains(FLAGS_filter))
        dirs.push_back(it->path());
    if (ec) {
      errs() << "error: " << suite << ": " << ec.message() << "\n";
      return 1;
    }
    std::sort(dirs.begin(), dirs.end());
    for (const std::string &dir : dirs) {
      Outcome o = runIsolated(dir);
      counts[o.status]++;
      outs() << o.status << "\t" << sys::path::filename(suite) << "/" << sys::path::filename(dir);
      if (FLAGS_verbose && o.status != "pass")
        outs() << "\t" << o.detail;
      else if (FLAGS_verbose)
        outs() << "\tmax abs err " << format("%.3g", o.maxAbsErr);
      outs() << "\n";
    }
  }
  outs() << "summary:";
  for (const char *s : {"pass", "wrong", "refused", "crashed", "hung"})
    outs() << " " << s << " " << counts[s];
  outs() << "\n";
  return counts["crashed"] || counts["hung"] ? 1 : 0;
}
