// conformance: runs ONNX-style test cases (a folder per case with model.onnx and
// test_data_set_N/) on a backend and reports pass / wrong / refused / crashed per case.
// Each case runs in a child process so a crash or hang is counted, not fatal.
#include "CommandLine.h"
#include "ModelTestCase.h"
#include "ToolFlags.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>
#include <poll.h>
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
DEFINE_int32(jobs, 0, "Cases run at the same time, each in its own process (0: one per CPU)");

namespace {

struct Outcome {
  std::string status, detail;
  double maxAbsErr = 0;
  unsigned compileTimeInputs = 0; ///< inputs fixed at compile time (CaseResult)
};

/// What a child process running one case reports through its pipe.
std::string runCase(const std::string &dir) {
  tools::Tolerance tol;
  tol.atol = FLAGS_atol;
  tol.rtol = FLAGS_rtol;
  tools::CaseResult r = tools::runModelTestCase(dir, FLAGS_backend, tol, FLAGS_strict_onnx);
  const char *status = r.status == tools::CaseResult::Pass    ? "pass"
                       : r.status == tools::CaseResult::Wrong ? "wrong"
                                                              : "refused";
  std::string detail = r.detail;
  std::replace(detail.begin(), detail.end(), '\n', ' ');
  char err[32];
  snprintf(err, sizeof(err), "%.3g", r.maxAbsErr);
  return std::string(status) + "\t" + err + "\t" + std::to_string(r.compileTimeInputs) + "\t" +
         detail;
}

/// One case running in a child: its pipe, and what it has said so far.
struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string out;
};

Child spawn(const std::string &dir) {
  int fds[2];
  if (pipe(fds) != 0)
    return Child();
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(FLAGS_timeout);
    std::string line = runCase(dir);
    (void)!write(fds[1], line.data(), line.size());
    _exit(0);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return Child();
  }
  return Child{pid, fds[0], ""};
}

/// The outcome of a child that has closed its pipe: "status\tmaxAbsErr\tinputs\tdetail", or
/// how it died.
Outcome reap(Child &c) {
  close(c.fd);
  int status = 0;
  waitpid(c.pid, &status, 0);
  if (WIFSIGNALED(status))
    return {WTERMSIG(status) == SIGALRM ? "hung" : "crashed",
            "signal " + std::to_string(WTERMSIG(status))};
  size_t tab = c.out.find('\t');
  size_t tab2 = tab == std::string::npos ? tab : c.out.find('\t', tab + 1);
  size_t tab3 = tab2 == std::string::npos ? tab2 : c.out.find('\t', tab2 + 1);
  if (tab3 == std::string::npos)
    return {"crashed", "no result"};
  return {c.out.substr(0, tab), c.out.substr(tab3 + 1),
          std::strtod(c.out.substr(tab + 1, tab2 - tab - 1).c_str(), nullptr),
          unsigned(std::strtoul(c.out.substr(tab2 + 1, tab3 - tab2 - 1).c_str(), nullptr, 10))};
}

/// Runs every case in its own child, at most \p jobs at a time; outcomes in the cases' order.
std::vector<Outcome> runAll(const std::vector<std::string> &dirs, unsigned jobs) {
  std::vector<Outcome> outcomes(dirs.size());
  std::map<int, std::pair<size_t, Child>> running; // by pipe fd
  size_t next = 0;
  while (next < dirs.size() || !running.empty()) {
    while (next < dirs.size() && running.size() < jobs) {
      Child c = spawn(dirs[next]);
      if (c.pid < 0)
        outcomes[next] = {"crashed", "cannot start a child process"};
      else
        running.emplace(c.fd, std::make_pair(next, std::move(c)));
      ++next;
    }
    if (running.empty())
      continue;
    std::vector<pollfd> fds;
    for (auto &r : running)
      fds.push_back(pollfd{r.first, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0)
      continue; // EINTR
    for (const pollfd &p : fds) {
      if (!p.revents)
        continue;
      auto &[index, child] = running[p.fd];
      char buf[4096];
      ssize_t n = read(p.fd, buf, sizeof(buf));
      if (n > 0) {
        child.out.append(buf, size_t(n));
        continue;
      }
      outcomes[index] = reap(child);
      running.erase(p.fd);
    }
  }
  return outcomes;
}

} // namespace

int main(int argc, char **argv) {
  tools::parseCommandLine(argc, argv,
                          "conformance: run ONNX backend test cases on a backend.\n"
                          "  conformance -suite=/usr/share/libonnx-testdata/data/node");
  std::map<std::string, int> counts;
  SmallVector<StringRef, 4> suites;
  StringRef(FLAGS_suite).split(suites, ',', -1, false);
  std::vector<std::string> dirs, names;
  for (StringRef suite : suites) {
    std::vector<std::string> found;
    std::error_code ec;
    for (sys::fs::directory_iterator it(suite, ec), end; it != end && !ec; it.increment(ec))
      if (sys::fs::is_directory(it->path()) &&
          StringRef(it->path()).contains(FLAGS_filter))
        found.push_back(it->path());
    if (ec) {
      errs() << "error: " << suite << ": " << ec.message() << "\n";
      return 1;
    }
    std::sort(found.begin(), found.end());
    for (const std::string &dir : found) {
      dirs.push_back(dir);
      names.push_back((sys::path::filename(suite) + "/" + sys::path::filename(dir)).str());
    }
  }
  unsigned jobs = FLAGS_jobs > 0 ? unsigned(FLAGS_jobs) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<Outcome> outcomes = runAll(dirs, jobs);
  for (size_t i = 0; i < dirs.size(); ++i) {
    const Outcome &o = outcomes[i];
    counts[o.status]++;
    outs() << o.status << "\t" << names[i];
    if (FLAGS_verbose && o.status != "pass")
      outs() << "\t" << o.detail;
    else if (FLAGS_verbose)
      outs() << "\tmax abs err " << format("%.3g", o.maxAbsErr);
    // Which cases ran with inputs fixed at compile time (the model needs them then).
    if (FLAGS_verbose && o.compileTimeInputs && o.status != "refused")
      outs() << "; " << o.compileTimeInputs << " input(s) fixed at compile time";
    outs() << "\n";
  }
  outs() << "summary:";
  for (const char *s : {"pass", "wrong", "refused", "crashed", "hung"})
    outs() << " " << s << " " << counts[s];
  outs() << "\n";
  return counts["crashed"] || counts["hung"] ? 1 : 0;
}
