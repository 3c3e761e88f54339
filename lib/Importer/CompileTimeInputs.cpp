#include "ember/Importer/CompileTimeInputs.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace ember {

char CompileTimeInputsError::ID = 0;

CompileTimeInputsError::CompileTimeInputsError(const std::string &use,
                                               const std::vector<std::string> &inputs) {
  uses_.push_back({use, inputs});
  for (const std::string &name : inputs)
    inputs_.push_back({name, SIZE_MAX, {use}});
}

void CompileTimeInputsError::setPositions(const std::vector<std::string> &graphInputs) {
  for (Input &in : inputs_) {
    auto it = std::find(graphInputs.begin(), graphInputs.end(), in.name);
    if (it != graphInputs.end())
      in.position = size_t(it - graphInputs.begin());
  }
}

void CompileTimeInputsError::merge(const CompileTimeInputsError &other) {
  uses_.insert(uses_.end(), other.uses_.begin(), other.uses_.end());
  for (const Input &in : other.inputs_) {
    auto it = std::find_if(inputs_.begin(), inputs_.end(),
                           [&](const Input &mine) { return mine.name == in.name; });
    if (it == inputs_.end())
      inputs_.push_back(in);
    else
      it->uses.insert(it->uses.end(), in.uses.begin(), in.uses.end());
  }
}

void CompileTimeInputsError::log(raw_ostream &os) const {
  for (size_t i = 0; i < uses_.size(); ++i) {
    const auto &[use, inputs] = uses_[i];
    os << (i ? "\n" : "") << use
       << " must be a constant known at compile time, and it is computed from graph input"
       << (inputs.size() > 1 ? "s " : " ");
    for (size_t k = 0; k < inputs.size(); ++k)
      os << (k ? ", '" : "'") << inputs[k] << "'";
  }
}

void CompileTimeInputsError::addContext(const std::string &context) {
  for (auto &use : uses_)
    use.first = context + ": " + use.first;
  for (Input &in : inputs_)
    for (std::string &use : in.uses)
      use = context + ": " + use;
}

} // namespace ember
