// See FuzzInput.h.
#include "FuzzInput.h"

#include "ember/Support/MemoryBudget.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/stubs/logging.h>

#include <cstdio>
#include <cstdlib>

namespace ember {
namespace fuzz {

namespace {

std::string &scratchDir() {
  static std::string dir;
  return dir;
}

void removeScratch() {
  if (!scratchDir().empty())
    llvm::sys::fs::remove_directories(scratchDir());
}

} // namespace

std::string writeInput(llvm::StringRef fileName, llvm::StringRef bytes) {
  if (scratchDir().empty()) {
    llvm::SmallString<128> dir;
    if (llvm::sys::fs::createUniqueDirectory("ember-fuzz", dir)) {
      std::fprintf(stderr, "cannot create a scratch directory\n");
      std::abort();
    }
    scratchDir() = std::string(dir);
    std::atexit(removeScratch);
  }
  llvm::SmallString<128> path(scratchDir());
  llvm::sys::path::append(path, fileName);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::abort();
  }
  os << bytes;
  return std::string(path);
}

void setUpProcess() {
  static bool done = [] {
    google::protobuf::SetLogHandler(nullptr);
    setMemoryBudget(kMemoryBudget);
    return true;
  }();
  (void)done;
}

} // namespace fuzz
} // namespace ember
