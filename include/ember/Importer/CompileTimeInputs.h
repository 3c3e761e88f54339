// The error a load fails with when the model needs graph inputs at compile time (a Reshape's
// shape, a Pad's pads, ... taken as graph inputs). It names those inputs, so a tool can bind
// exactly them to their values (ImportOptions::constantInputs) and load again, leaving every
// other input a run-time input; nobody has to parse messages.
#ifndef EMBER_IMPORTER_COMPILETIMEINPUTS_H
#define EMBER_IMPORTER_COMPILETIMEINPUTS_H

#include "ember/Support/Error.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ember {

class CompileTimeInputsError : public llvm::ErrorInfo<CompileTimeInputsError, ContextualError> {
public:
  static char ID;

  struct Input {
    std::string name;
    /// Its index among the graph's inputs that are not initializers (how unnamed input files
    /// are matched); SIZE_MAX where the format does not say (Caffe2).
    size_t position = SIZE_MAX;
    /// The operands that need it, with their context ("m.onnx: node 'r' (Reshape): input 1
    /// ('shape')").
    std::vector<std::string> uses;
  };

  /// One operand, \p use, that must be known at compile time and is computed from the graph
  /// inputs \p inputs.
  CompileTimeInputsError(const std::string &use, const std::vector<std::string> &inputs);

  /// Every graph input needed, each once, in the order first met.
  const std::vector<Input> &inputs() const { return inputs_; }
  /// Sets the position of each input named in \p graphInputs (in the graph's order).
  void setPositions(const std::vector<std::string> &graphInputs);
  /// Adds \p other's inputs and uses to this one.
  void merge(const CompileTimeInputsError &other);

  /// One line per operand: "<use> must be a constant known at compile time, and it is computed
  /// from graph input(s) 'a', 'b'".
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }
  void addContext(const std::string &context) override;

private:
  std::vector<Input> inputs_;
  /// Each operand that needs a compile-time value, and the inputs it is computed from.
  std::vector<std::pair<std::string, std::vector<std::string>>> uses_;
};

} // namespace ember

#endif
