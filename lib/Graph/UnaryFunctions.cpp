#include "ember/Graph/UnaryFunctions.h"

using namespace llvm;

namespace ember {

namespace {
const UnaryFunctionInfo kUnaryFunctions[] = {
#define UNARY_FUNCTION(E, NAME, DOMAIN, FLOAT_FORM, INTEGER_FORM, VECTOR_FORM, FUSE, DOC)     \
  {UnaryFunction::E, #NAME, #E, KindSet::DOMAIN, DOC},
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
};
} // namespace

const UnaryFunctionInfo *findUnaryFunction(StringRef name) {
  for (const UnaryFunctionInfo &f : kUnaryFunctions)
    if (f.name == name)
      return &f;
  return nullptr;
}

bool unaryFunctionAccepts(StringRef name, ElemKind k) {
  const UnaryFunctionInfo *f = findUnaryFunction(name);
  return f && kindInSet(k, f->domain);
}

} // namespace ember
