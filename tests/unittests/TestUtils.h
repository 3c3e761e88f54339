// Helpers shared by the unit tests.
#ifndef EMBER_TESTS_UNITTESTS_TESTUTILS_H
#define EMBER_TESTS_UNITTESTS_TESTUTILS_H

#include "ember/Support/Error.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

namespace ember {
namespace test {

inline std::string sourcePath(const std::string &rel) { return std::string(EMBER_SOURCE_DIR) + "/" + rel; }

/// A temp dir removed with its contents at scope exit.
class TempDir {
  std::string path_;

public:
  TempDir() {
    char buf[] = "/tmp/ember-test-XXXXXX";
    path_ = mkdtemp(buf);
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string &path() const { return path_; }
  std::string write(const std::string &name, const std::string &content) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
};

/// The message of a failed Expected/Error, or "" on success (and the value is dropped).
template <typename T> std::string errorOf(llvm::Expected<T> e) {
  return e ? std::string() : errorToString(e.takeError());
}
inline std::string errorOf(llvm::Error e) { return e ? errorToString(std::move(e)) : ""; }

} // namespace test
} // namespace ember

#define ASSERT_OK_AND_ASSIGN(decl, expr)                                                           \
  ASSERT_OK_AND_ASSIGN_IMPL(EMBER_CONCAT(okTmp_, __LINE__), decl, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL(tmp, decl, expr)                                                 \
  auto tmp = (expr);                                                                               \
  ASSERT_TRUE(bool(tmp)) << ::ember::errorToString(tmp.takeError());                               \
  decl = std::move(*tmp)

#endif
