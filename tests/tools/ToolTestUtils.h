// Running a tool as a user does, for the end-to-end tests (tests/tools/): no shell, stdin from
// /dev/null, stdout and stderr captured, a timeout; and the checks every such test makes (no
// crash, no hang, a clean "error: ..." with exit code 1 on bad input).
#ifndef EMBER_TESTS_TOOLS_TOOLTESTUTILS_H
#define EMBER_TESTS_TOOLS_TOOLTESTUTILS_H

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

namespace tooltest {

struct RunResult {
  std::string command; ///< for failure messages
  bool timedOut = false;
  bool signaled = false;
  int signal = 0;
  int exitCode = -1;
  std::string out;
  std::string err;

  /// Everything a failed expectation should show.
  std::string describe() const {
    std::ostringstream os;
    os << "command: " << command << "\n";
    if (timedOut)
      os << "status: HANG (killed after the timeout)\n";
    else if (signaled)
      os << "status: CRASH (signal " << signal << ": " << strsignal(signal) << ")\n";
    else
      os << "status: exit code " << exitCode << "\n";
    os << "--- stdout ---\n" << out << "\n--- stderr ---\n" << err << "\n";
    return os.str();
  }
};

inline double nowSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// Runs \p program with \p args (no shell), stdin from /dev/null, stdout and stderr captured
/// separately through pipes. After \p timeoutSec the process is killed and reported as a hang.
inline RunResult runProgram(const std::string &program, const std::vector<std::string> &args,
                            double timeoutSec = 60) {
  RunResult r;
  std::vector<std::string> argvStore;
  argvStore.push_back(program);
  argvStore.insert(argvStore.end(), args.begin(), args.end());
  for (const std::string &a : argvStore)
    r.command += (r.command.empty() ? "" : " ") + a;

  int outPipe[2], errPipe[2];
  if (pipe2(outPipe, O_CLOEXEC) != 0 || pipe2(errPipe, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe2: " << strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
  std::vector<char *> argv;
  for (std::string &a : argvStore)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(outPipe[1]);
  close(errPipe[1]);
  if (rc != 0) {
    close(outPipe[0]);
    close(errPipe[0]);
    ADD_FAILURE() << "posix_spawn " << program << ": " << strerror(rc);
    return r;
  }

  const double deadline = nowSeconds() + timeoutSec;
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  std::string *sinks[2] = {&r.out, &r.err};
  int openPipes = 2;
  while (openPipes > 0) {
    double left = deadline - nowSeconds();
    if (left <= 0) {
      r.timedOut = true;
      break;
    }
    int n = poll(fds, 2, int(left * 1000) + 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      ADD_FAILURE() << "poll: " << strerror(errno);
      r.timedOut = true;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char buf[65536];
      ssize_t got = read(fds[i].fd, buf, sizeof(buf));
      if (got > 0) {
        sinks[i]->append(buf, size_t(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --openPipes;
      }
    }
  }
  for (pollfd &p : fds)
    if (p.fd >= 0)
      close(p.fd);
  // Both pipes closed (or time is up): wait for the exit, still bounded by the deadline.
  int status = 0;
  while (!r.timedOut) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
      break;
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0) {
      ADD_FAILURE() << "waitpid: " << strerror(errno);
      return r;
    }
    if (nowSeconds() > deadline)
      r.timedOut = true;
    else
      usleep(2000);
  }
  if (r.timedOut) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return r;
  }
  if (WIFSIGNALED(status)) {
    r.signaled = true;
    r.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    r.exitCode = WEXITSTATUS(status);
  }
  return r;
}

/// The process neither hung nor crashed.
#define EXPECT_NO_HANG_OR_CRASH(r)                                                                 \
  do {                                                                                             \
    EXPECT_FALSE((r).timedOut) << "HANG\n" << (r).describe();                                      \
    EXPECT_FALSE((r).signaled) << "CRASH\n" << (r).describe();                                     \
  } while (0)

/// A successful run: exit code 0, no crash, no hang, nothing on stderr starting with "error:".
#define EXPECT_SUCCESS(r)                                                                          \
  do {                                                                                             \
    EXPECT_NO_HANG_OR_CRASH(r);                                                                    \
    EXPECT_EQ((r).exitCode, 0) << (r).describe();                                                  \
    EXPECT_EQ((r).err.find("error:"), std::string::npos) << (r).describe();                        \
  } while (0)

/// A clean refusal: exit code 1, no crash or hang, stderr starts with "error:" and mentions every
/// one of \p words.
inline void expectCleanError(const RunResult &r, std::initializer_list<std::string> words) {
  EXPECT_FALSE(r.timedOut) << "HANG\n" << r.describe();
  EXPECT_FALSE(r.signaled) << "CRASH\n" << r.describe();
  EXPECT_EQ(r.exitCode, 1) << r.describe();
  EXPECT_EQ(r.err.rfind("error:", 0), 0u) << "stderr must start with 'error:'\n" << r.describe();
  for (const std::string &w : words)
    EXPECT_NE(r.err.find(w), std::string::npos)
        << "stderr should mention '" << w << "'\n"
        << r.describe();
}

/// A clean refusal about \p file: besides expectCleanError's checks, every stderr line that starts
/// with "error:" reads "error: <file>: ..." (a message must not be split into fragments that
/// lose the file, e.g. an empty "error: " line).
inline void expectFileError(const RunResult &r, const std::string &file,
                     std::initializer_list<std::string> words) {
  expectCleanError(r, words);
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("error:", 0) == 0) {
      EXPECT_EQ(line.rfind("error: " + file + ": ", 0), 0u)
          << "every error line should name " << file << "; this one does not:\n  " << line
          << "\n"
          << r.describe();
    }
}


} // namespace tooltest

#endif
