// A main for the harnesses in builds without libFuzzer: runs each file given, or each file in
// each directory given, through LLVMFuzzerTestOneInput once. ctest replays the regression
// inputs (tests/fuzz/regressions/<harness>/) and the seeds this way in every build, so a crash
// found once stays fixed.
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!llvm::sys::fs::is_directory(argv[i])) {
      files.push_back(argv[i]);
      continue;
    }
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator it(argv[i], ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::sys::fs::is_regular_file(it->path()))
        files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const std::string &f : files) {
    auto buf = llvm::MemoryBuffer::getFile(f, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!buf) {
      std::fprintf(stderr, "cannot read %s\n", f.c_str());
      return 1;
    }
    std::fprintf(stderr, "%s\n", f.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
                           (*buf)->getBufferSize());
  }
  std::fprintf(stderr, "replayed %zu input(s)\n", files.size());
  return 0;
}
