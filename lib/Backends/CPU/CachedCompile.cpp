// Compiling a generated module in cached parts: see CachedCompile.h.
#include "CachedCompile.h"

#include "Common/BundleObject.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

using GlobalSet = SmallPtrSet<const GlobalValue *, 16>;

struct References {
  GlobalSet globals;
  bool blockAddresses = false; ///< a block's address ties code to its function's module
};

/// The global values \p F refers to: through its instructions' operands and the constants
/// they are built of, and through the initializers of the module-local variables it reaches
/// (a part holds copies of those).
References referencesOf(const llvm::Function &F) {
  References refs;
  SmallVector<const llvm::Constant *, 32> work;
  SmallPtrSet<const llvm::Constant *, 32> seen;
  auto visit = [&](const Value *v) {
    if (auto *c = dyn_cast<llvm::Constant>(v))
      if (seen.insert(c).second)
        work.push_back(c);
  };
  for (const BasicBlock &BB : F)
    for (const llvm::Instruction &I : BB)
      for (const Use &U : I.operands())
        visit(U.get());
  while (!work.empty()) {
    const llvm::Constant *c = work.pop_back_val();
    refs.blockAddresses |= isa<BlockAddress>(c);
    if (auto *gv = dyn_cast<GlobalValue>(c)) {
      refs.globals.insert(gv);
      auto *var = dyn_cast<GlobalVariable>(gv);
      if (var && var->hasLocalLinkage() && var->hasInitializer())
        visit(var->getInitializer());
      continue;
    }
    for (const Use &U : c->operands())
      visit(U.get());
  }
  return refs;
}

/// Whether \p F's part can hold copies of the module-local variables it refers to: only if they
/// are constants, whose copies nobody can tell apart from the original (a variable the code
/// writes must stay one, in the model's part). A kernel's own part also needs a body.
bool standsAlone(const llvm::Function &F, const References &refs) {
  if (F.isDeclaration() || F.hasPersonalityFn() || refs.blockAddresses)
    return false;
  for (const GlobalValue *gv : refs.globals) {
    if (isa<GlobalAlias>(gv) || isa<GlobalIFunc>(gv))
      return false;
    auto *var = dyn_cast<GlobalVariable>(gv);
    if (var && var->hasLocalLinkage() && !var->isConstant())
      return false;
  }
  return true;
}

/// Makes \p F a symbol other parts can name, as a shared library's function would be.
void externalize(llvm::Function &F) {
  if (!F.hasLocalLinkage())
    return;
  F.setLinkage(GlobalValue::ExternalLinkage);
  F.setVisibility(GlobalValue::DefaultVisibility);
  F.setDSOLocal(false);
}

/// Puts the functions and the variables of \p P in the order of their names, so that a part's
/// bitcode does not depend on the order in which the model first called its kernels.
void sortByName(llvm::Module &P) {
  auto byName = [](const GlobalValue *a, const GlobalValue *b) {
    return a->getName() < b->getName();
  };
  std::vector<llvm::Function *> functions;
  for (llvm::Function &f : P)
    functions.push_back(&f);
  std::sort(functions.begin(), functions.end(), byName);
  for (llvm::Function *f : functions) {
    f->removeFromParent();
    P.getFunctionList().push_back(f);
  }
  std::vector<GlobalVariable *> vars;
  for (GlobalVariable &g : P.globals())
    vars.push_back(&g);
  std::sort(vars.begin(), vars.end(), byName);
  for (GlobalVariable *g : vars) {
    g->removeFromParent();
    P.insertGlobalVariable(g);
  }
}

/// A copy of \p M that defines the global values \p defines accepts and declares only what
/// those refer to.
std::unique_ptr<llvm::Module> extractPart(const llvm::Module &M,
                                          function_ref<bool(const GlobalValue *)> defines) {
  ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> P = CloneModule(M, map, defines);
  P->setModuleIdentifier("");
  P->setSourceFileName("");
  // Every other part's functions and variables are declarations here; unused, they would only
  // make the key depend on the rest of the model. Unused local variables are the other parts'.
  for (bool erased = true; erased;) {
    erased = false;
    for (llvm::Function &f : make_early_inc_range(*P))
      if (f.isDeclaration() && f.use_empty()) {
        f.eraseFromParent();
        erased = true;
      }
    for (GlobalVariable &g : make_early_inc_range(P->globals()))
      if ((g.isDeclaration() || g.hasLocalLinkage()) && g.use_empty()) {
        g.eraseFromParent();
        erased = true;
      }
  }
  sortByName(*P);
  return P;
}

/// What the machine code depends on besides the IR: the target machine's settings. (Its
/// TargetOptions are LLVM's defaults in this backend: createTargetMachine, JIT.cpp.)
std::string targetDescription(const TargetMachine &TM) {
  std::string s;
  raw_string_ostream os(s);
  os << TM.getTargetTriple().str() << '\n'
     << TM.getTargetCPU() << '\n'
     << TM.getTargetFeatureString() << '\n'
     << int(TM.getOptLevel()) << ' ' << int(TM.getCodeModel()) << ' '
     << int(TM.getRelocationModel()) << '\n';
  return s;
}

CodeKey keyOf(const llvm::Module &P, StringRef target) {
  SmallVector<char, 0> bitcode;
  raw_svector_ostream os(bitcode);
  WriteBitcodeToFile(P, os);
  SHA256 hash;
  hash.update(target);
  hash.update(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(bitcode.data()),
                                bitcode.size()));
  std::array<uint8_t, 32> digest = hash.final();
  CodeKey key;
  std::copy(digest.begin(), digest.end(), key.begin());
  return key;
}

} // namespace

Expected<std::vector<std::shared_ptr<const std::string>>>
compileInParts(llvm::Module &M, TargetMachine &TM, StringRef entryName, CodeCache &cache) {
  // A comdat groups sections of one object; the parts are objects of their own.
  for (GlobalObject &go : M.global_objects())
    go.setComdat(nullptr);
  // Which kernels get parts of their own, and what each part copies.
  std::vector<std::pair<llvm::Function *, References>> kernels;
  if (M.alias_empty() && M.ifunc_empty())
    for (llvm::Function &F : M) {
      if (F.isDeclaration() || F.getName().starts_with(entryName))
        continue;
      References refs = referencesOf(F);
      if (standsAlone(F, refs))
        kernels.emplace_back(&F, std::move(refs));
    }
  SmallPtrSet<const GlobalValue *, 32> inKernelParts;
  for (auto &[F, refs] : kernels)
    inKernelParts.insert(F);
  // A function one part defines and another calls must be a symbol both can name: every
  // kernel with a part of its own (the model's part calls it), and any function of the model's
  // part a kernel calls.
  for (auto &[F, refs] : kernels) {
    externalize(*F);
    for (const GlobalValue *gv : refs.globals)
      if (auto *callee = dyn_cast<llvm::Function>(gv))
        if (!callee->isDeclaration())
          externalize(*const_cast<llvm::Function *>(callee));
  }
  const std::string target = targetDescription(TM);
  std::vector<std::shared_ptr<const std::string>> objects;
  auto compile = [&](std::unique_ptr<llvm::Module> part) -> Error {
    CodeKey key = keyOf(*part, target);
    std::shared_ptr<const std::string> object = cache.find(key);
    if (!object) {
      using Bytes = SmallVector<char, 0>;
      EMBER_ASSIGN_OR_RETURN(Bytes bytes, emitObjectCode(*part, TM));
      object = std::make_shared<const std::string>(bytes.data(), bytes.size());
      cache.insert(key, object);
    }
    objects.push_back(std::move(object));
    return Error::success();
  };
  for (auto &[F, refs] : kernels) {
    const GlobalSet &copied = refs.globals;
    llvm::Function *defined = F;
    EMBER_TRY(compile(extractPart(M, [&](const GlobalValue *gv) {
      if (gv == defined)
        return true;
      auto *var = dyn_cast<GlobalVariable>(gv);
      return var && var->hasLocalLinkage() && copied.count(gv);
    })));
  }
  // The model's part: everything else, and every variable (unused local ones dropped).
  EMBER_TRY(compile(extractPart(M, [&](const GlobalValue *gv) {
    return isa<GlobalVariable>(gv) || !inKernelParts.count(gv);
  })));
  return std::move(objects);
}

} // namespace cpu
} // namespace ember
