// Running one ONNX-style test case: a folder with model.onnx (or model.onnxtxt) and
// test_data_set_N/{input,output}_K.pb, compiled for a backend and compared with the expected
// outputs. Used by the model tests and the conformance runner.
#ifndef EMBER_TOOLS_COMMON_MODELTESTCASE_H
#define EMBER_TOOLS_COMMON_MODELTESTCASE_H

#include "ember/Base/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ember {
namespace tools {

struct Tolerance {
  double atol = 1e-5, rtol = 1e-3; ///< floats: |got - want| <= atol + rtol * |want|
};

/// How \p got differs from \p want: empty when equal within \p tol (integers and bools exactly,
/// NaN matches NaN). \p maxAbsErr receives the largest difference seen.
std::string compareTensors(const Tensor &got, const Tensor &want, const Tolerance &tol,
                           double *maxAbsErr = nullptr);

struct CaseResult {
  enum Status { Pass, Wrong, Refused } status;
  std::string detail; ///< why it is wrong or refused
  double maxAbsErr = 0;
  /// How many graph inputs were fixed at compile time to their test data because the model
  /// needs them then (InputBinding.h), in the data set needing most.
  unsigned compileTimeInputs = 0;
};

/// Loads, compiles for \p backend and runs every test_data_set of the case in \p dir. Inputs
/// the model needs at compile time are fixed to their test data, only those (InputBinding.h).
/// Failing to load or compile is Refused (with the error), a mismatch Wrong. \p strictONNX
/// refuses models on any ONNX checker finding (ImportOptions::strictONNX); the warnings of a
/// lenient load are not reported.
CaseResult runModelTestCase(llvm::StringRef dir, llvm::StringRef backend,
                            const Tolerance &tol = {}, bool strictONNX = false);

} // namespace tools
} // namespace ember

#endif
