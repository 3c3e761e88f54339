// The bundle writer (Bundle.h): the backend writes the object; everything else a program needs
// to use it (header, weights, manifest) comes from the memory plan, here.
#include "ember/Driver/Bundle.h"

#include "CompilePipeline.h"

#include "ember/Support/Error.h"
#include "ember/Support/MemoryBudget.h"
#include "ember/Support/PhaseClock.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>

using namespace llvm;

#ifndef EMBER_VERSION
#error "EMBER_VERSION is defined by lib/Driver/CMakeLists.txt"
#endif

namespace ember {

StringRef compilerVersion() { return "ember " EMBER_VERSION; }

std::string legalizeCIdentifier(StringRef name) {
  std::string out = name.str();
  for (char &c : out)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_')
      c = '_';
  if (out.empty() || isdigit(static_cast<unsigned char>(out[0])))
    out = "_" + out;
  return out;
}

namespace {

/// A placeholder as the bundle presents it.
struct Placement {
  const WeightVar *var;
  std::string symbol; ///< legalized, unique
  bool isInput;
};

std::vector<Placement> placements(const IRFunction &IR) {
  std::vector<Placement> out;
  StringSet<> taken;
  for (const auto &w : IR.getWeights()) {
    if (w->isConstant())
      continue;
    std::string base = legalizeCIdentifier(w->getName()), symbol = base;
    for (unsigned n = 2; !taken.insert(symbol).second; ++n) // two names legalized alike
      symbol = base + "_" + std::to_string(n);
    bool isInput = !static_cast<const Placeholder *>(w->getOrigin())->isSaveTarget();
    out.push_back({w.get(), symbol, isInput});
  }
  return out;
}

/// The array NET.weights.o defines (-bundle-weights=object).
std::string weightsSymbol(const BundleOptions &b) { return b.networkName + "_constant_weights"; }

std::string upper(StringRef s) {
  std::string u = s.str();
  for (char &c : u)
    c = char(toupper(static_cast<unsigned char>(c)));
  return u;
}

/// The element kind and dims, e.g. "float32 [1, 3, 224, 224]".
std::string describe(const Type &t) {
  std::string s = elemKindName(t.kind).str() + " [";
  for (size_t i = 0; i < t.dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(t.dims[i]);
  s += "]";
  if (isQuantizedKind(t.kind))
    s += " (scale " + std::to_string(t.scale) + ", offset " + std::to_string(t.offset) + ")";
  return s;
}

/// A comment line safe in C: no line breaks, no end of comment.
std::string commentSafe(StringRef s) {
  std::string out;
  for (char c : s)
    out += (c == '\n' || c == '\r') ? ' ' : c;
  size_t at;
  while ((at = out.find("*/")) != std::string::npos)
    out.replace(at, 2, "* /");
  return out;
}

Error writeFile(const std::string &path, function_ref<void(raw_ostream &)> write) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return makeError("cannot write '" + path + "': " + ec.message());
  write(os);
  os.close();
  if (os.has_error())
    return makeError("cannot write '" + path + "': " + os.error().message());
  return Error::success();
}

/// A CPU bundle's team functions (CodeGen.h: GeneratedModule; docs/bundles.md: threads).
void writeTeamAPI(raw_ostream &os, StringRef entry, StringRef U, const ObjectInfo &obj) {
  std::string T = (entry + "_team").str();
  os << "/* Threads. " << entry << "() splits its kernels over " << U
     << "_THREADS threads: it starts\n"
     << " * " << U << "_THREADS - 1 workers each call and joins them before it returns. To "
     << "keep them between\n"
     << " * calls, start a team once in " << U << "_TEAM_BYTES of storage aligned to 64 "
     << "bytes and run on it:\n"
     << " *   " << T << " *team = " << T << "_start(storage);\n"
     << " *   " << entry << "_on_team(team, constantWeight, mutableWeight, activations);  "
     << "(again and again)\n"
     << " *   " << T << "_stop(team);\n"
     << " * A team serves one call at a time. Its idle workers spin for about 30 "
     << "microseconds, yield\n"
     << " * for about a millisecond, then sleep until the next call's work. Or hand the "
     << "kernels your own\n"
     << " * pool: " << T << "_of_pool(storage, parallelFor, pool, threads). Each parallel "
     << "step then calls\n"
     << " * parallelFor(pool, parts, run, job), parts <= threads and <= " << U
     << "_THREADS, which must call\n"
     << " * run(job, p) once for every p in [0, parts), on any threads (the calling one "
     << "too), and return\n"
     << " * when all have returned. A null team runs as " << entry << "() does. With "
     << U << "_THREADS 1 the\n"
     << " * team functions do nothing. */\n"
     << "#define " << U << "_THREADS " << obj.teamThreads << "\n"
     << "#define " << U << "_TEAM_BYTES " << obj.teamBytes << "\n"
     << "typedef struct " << T << " " << T << ";\n"
     << "typedef void (*" << entry << "_parallel_for)(void *pool, int64_t parts,\n"
     << "    void (*run)(const void *job, int64_t part), const void *job);\n"
     << T << " *" << T << "_start(void *storage);\n"
     << T << " *" << T << "_of_pool(void *storage, " << entry
     << "_parallel_for parallelFor, void *pool,\n"
     << "    int64_t threads);\n"
     << "void " << T << "_stop(" << T << " *team);\n"
     << "int " << entry << "_on_team(" << T
     << " *team, uint8_t *constantWeight, uint8_t *mutableWeight,\n"
     << "    uint8_t *activations);\n\n";
}

/// An instrumented bundle's entry (-instrument; docs/bundles.md). The two structs are
/// kernels/TraceBuffer.h's, field for field; the guard lets a program include two bundles' headers.
void writeTraceAPI(raw_ostream &os, StringRef entry, StringRef U, const ObjectInfo &obj) {
  os << "/* Instrumented (-instrument): " << entry << "_traced runs as " << entry
     << "_on_team does and records\n"
     << " * into the caller's buffer one event per computing instruction it runs (instruction: "
        "its index\n"
     << " * in the manifest's \"instructions\", thread 0, part -1) and one per part of a "
        "threaded step\n"
     << " * each thread ran (thread k: the team's k-th worker, 0 the caller; part p), with "
        "start and end\n"
     << " * in nanoseconds of CLOCK_MONOTONIC. Set events, capacity and count = 0 before a "
        "call; after it\n"
     << " * count events were recorded, and when count > capacity the last count - capacity "
        "did not fit\n"
     << " * and were dropped (nothing is written past capacity). A buffer serves one call at "
        "a time.\n"
     << " * utils/bundle-trace.py turns the events into a Chrome Trace Event file. */\n"
     << "#ifndef EMBER_TRACE_TYPES\n#define EMBER_TRACE_TYPES\n"
     << "typedef struct {\n  uint64_t start_ns, end_ns;\n"
     << "  int32_t instruction, thread, part, reserved;\n} ember_trace_event;\n"
     << "typedef struct {\n  ember_trace_event *events;\n  uint64_t capacity, count;\n"
     << "  int32_t current, reserved; /* the call's own */\n  uint64_t since;\n} ember_trace;\n"
     << "#endif\n"
     << "#define " << U << "_INSTRUCTIONS " << obj.tracedInstructions.size() << "\n"
     << "int " << entry << "_traced(" << entry
     << "_team *team, uint8_t *constantWeight, uint8_t *mutableWeight,\n"
     << "    uint8_t *activations, ember_trace *trace);\n\n";
}

void writeHeader(raw_ostream &os, const IRFunction &IR, const BundleOptions &b,
                 StringRef entry, const std::vector<Placement> &places, const ObjectInfo &obj) {
  std::string NET = b.networkName, U = upper(NET);
  os << "// " << NET << ".h: the bundle of model '"
     << commentSafe(sys::path::filename(b.modelPath)) << "', written by " << compilerVersion()
     << " (model-compiler).\n"
     << "// Do not edit: compile the model again instead. Link " << NET << ".o"
     << (b.weightsObject ? " and " + NET + ".weights.o" : "") << ", built for " << obj.triple;
  for (const std::string &f : obj.linkFlags)
    os << ", with " << f;
  os << ".\n//\n"
     << "// int " << entry
     << "(uint8_t *constantWeight, uint8_t *mutableWeight, uint8_t *activations);\n"
     << "//   constantWeight: " << U << "_CONSTANT_MEM_SIZE bytes holding " << NET
     << ".weights.bin (or the\n//                   initializer list " << NET
     << ".weights.txt of -bundle-weights=txt, or\n//                   " << weightsSymbol(b)
     << " of -bundle-weights=object); only read.\n"
     << "//   mutableWeight:  " << U
     << "_MUTABLE_MEM_SIZE bytes: write the inputs at their offsets, read the\n"
     << "//                   outputs at theirs.\n"
     << "//   activations:    " << U << "_ACTIVATIONS_MEM_SIZE bytes of scratch.\n"
     << "//   Each region aligned to " << U << "_MEM_ALIGN bytes. ";
  if (obj.keepsState)
    os << "The first call sets up the device the\n"
       << "//   bundle runs on and keeps it (heap and global state); calls from several threads\n"
       << "//   take turns. Returns 0, or an error code below.\n//\n";
  else
    os << "No heap and no global state: threads may call\n"
       << "//   it at once with their own mutable and activations regions. Returns 0, or an error\n"
       << "//   code below.\n//\n";
  os << "// Placeholders, at byte offsets into the mutable region:\n";
  for (const Placement &p : places)
    os << "//   " << (p.isInput ? "input  '" : "output '") << commentSafe(p.var->getName())
       << "' (" << U << "_" << p.symbol << "): " << describe(p.var->getType()) << ", "
       << p.var->sizeInBytes() << " bytes at offset " << p.var->offset << "\n";
  if (!obj.errors.empty()) {
    os << "//\n// Error codes:\n";
    for (size_t i = 0; i < obj.errors.size(); ++i)
      os << "//   " << i + 1 << ": " << commentSafe(obj.errors[i]) << "\n";
  }
  os << "#ifndef " << U << "_H\n#define " << U << "_H\n\n#include <stdint.h>\n\n";
  os << "#define " << U << "_CONSTANT_MEM_SIZE " << IR.constantSize << "\n"
     << "#define " << U << "_MUTABLE_MEM_SIZE " << IR.mutableSize << "\n"
     << "#define " << U << "_ACTIVATIONS_MEM_SIZE " << IR.activationsSize << "\n"
     << "#define " << U << "_MEM_ALIGN " << kTensorAlignment << "\n\n";
  if (!b.dynamicAPI) {
    for (const Placement &p : places)
      os << "#define " << U << "_" << p.symbol << " " << p.var->offset << "\n";
    os << "\n";
  }
  os << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  if (b.dynamicAPI) {
    os << "/// One placeholder: its name in the model, place in the mutable region, and kind.\n"
       << "typedef struct {\n  const char *name;\n  uint64_t offset;\n  uint64_t size;\n"
       << "  char kind; /* 'i': input, 'o': output */\n} " << NET << "_symbol;\n\n"
       << "/// The regions' sizes and alignment, and the placeholders, for programs that look\n"
       << "/// them up at run time.\n"
       << "typedef struct {\n  uint64_t constantMemSize;\n  uint64_t mutableMemSize;\n"
       << "  uint64_t activationsMemSize;\n  uint64_t alignment;\n  uint64_t numSymbols;\n"
       << "  const " << NET << "_symbol *symbols;\n} " << NET << "_config_t;\n\n"
       << "extern const " << NET << "_config_t " << NET << "_config;\n\n";
  }
  os << "int " << entry
     << "(uint8_t *constantWeight, uint8_t *mutableWeight, uint8_t *activations);\n\n";
  if (b.weightsObject)
    os << "/// The constant region, linked from " << NET << ".weights.o (-bundle-weights=object):\n"
       << "/// " << U << "_CONSTANT_MEM_SIZE bytes of read-only data aligned to " << U
       << "_MEM_ALIGN.\n"
       << "/// Pass (uint8_t *)" << weightsSymbol(b)
       << " as constantWeight (the bundle only reads it).\n"
       << "extern const uint8_t " << weightsSymbol(b) << "[];\n\n";
  if (obj.teamThreads > 0)
    writeTeamAPI(os, entry, U, obj);
  if (obj.instrumented)
    writeTraceAPI(os, entry, U, obj);
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
}

void writeWeightsText(raw_ostream &os, ArrayRef<uint8_t> bytes) {
  static const char hex[] = "0123456789abcdef";
  char line[16 * 6 + 1];
  for (size_t i = 0; i < bytes.size(); i += 16) {
    size_t n = 0, end = std::min(bytes.size(), i + 16);
    for (size_t j = i; j < end; ++j) {
      line[n++] = '0';
      line[n++] = 'x';
      line[n++] = hex[bytes[j] >> 4];
      line[n++] = hex[bytes[j] & 15];
      line[n++] = ',';
      line[n++] = j + 1 < end ? ' ' : '\n';
    }
    os.write(line, n);
  }
}

void writeManifest(raw_ostream &os, const IRFunction &IR, const BundleOptions &b,
                   StringRef entry, const std::vector<Placement> &places,
                   const ObjectInfo &obj) {
  json::OStream j(os, 2);
  j.object([&] {
    j.attribute("network", b.networkName);
    j.attribute("entry", entry);
    j.attribute("api", b.dynamicAPI ? "dynamic" : "static");
    j.attribute("target", obj.triple);
    j.attribute("compiler", compilerVersion());
    j.attribute("model", sys::path::filename(b.modelPath));
    j.attributeObject("memory", [&] {
      j.attribute("constant", int64_t(IR.constantSize));
      j.attribute("mutable", int64_t(IR.mutableSize));
      j.attribute("activations", int64_t(IR.activationsSize));
      // Of which kernel scratch: what the values alone would take, and the largest scratch.
      j.attribute("activationsValues", int64_t(IR.activationsValuesSize));
      j.attribute("scratchLargest", int64_t(IR.scratchLargest));
      j.attribute("alignment", int64_t(kTensorAlignment));
    });
    j.attributeArray("placeholders", [&] {
      for (const Placement &p : places)
        j.object([&] {
          const Type &t = p.var->getType();
          j.attribute("name", p.var->getName());
          j.attribute("symbol", p.symbol);
          j.attribute("kind", p.isInput ? "input" : "output");
          j.attribute("type", elemKindName(t.kind));
          j.attributeArray("shape", [&] {
            for (dim_t d : t.dims)
              j.value(int64_t(d));
          });
          if (isQuantizedKind(t.kind)) {
            j.attribute("scale", double(t.scale));
            j.attribute("zero_point", int64_t(t.offset));
          }
          j.attribute("offset", int64_t(p.var->offset));
          j.attribute("bytes", int64_t(p.var->sizeInBytes()));
        });
    });
    j.attributeArray("errors", [&] {
      for (const std::string &e : obj.errors)
        j.value(e);
    });
    j.attribute("reentrant", !obj.keepsState);
    if (obj.teamThreads > 0)
      j.attribute("threads", obj.teamThreads);
    if (obj.instrumented) // what an event's instruction index names
      j.attributeArray("instructions", [&] {
        for (const ObjectInfo::TracedInstruction &t : obj.tracedInstructions)
          j.object([&] {
            j.attribute("name", t.name);
            j.attribute("kind", t.kind);
            if (!t.timedWith.empty())
              j.attribute("timed_with", t.timedWith);
          });
      });
    j.attributeArray("link_flags", [&] {
      for (const std::string &f : obj.linkFlags)
        j.value(f);
    });
    // Each form of the weights written, and the symbol a program links for the object.
    json::Array files{b.networkName + ".o", b.networkName + ".h"}, weights;
    auto form = [&](bool written, StringRef name, StringRef suffix) {
      if (!written)
        return;
      std::string file = b.networkName + suffix.str();
      files.push_back(file);
      json::Object o{{"form", name}, {"file", file}};
      if (name == "object")
        o["symbol"] = weightsSymbol(b);
      weights.push_back(std::move(o));
    };
    form(b.weightsBin, "bin", ".weights.bin");
    form(b.weightsText, "txt", ".weights.txt");
    form(b.weightsObject, "object", ".weights.o");
    files.push_back(b.networkName + ".json");
    j.attribute("weights", std::move(weights));
    j.attribute("files", std::move(files));
  });
  os << "\n";
}

} // namespace

Expected<BundleResult> writeBundle(std::unique_ptr<Module> M, const CompileOptions &opts,
                                   const BundleOptions &b) {
  if (b.networkName.empty() || legalizeCIdentifier(b.networkName) != b.networkName)
    return makeError("network name '" + b.networkName + "' is not a C identifier");
  std::string entry = b.entryName.empty() ? b.networkName : b.entryName;
  if (legalizeCIdentifier(entry) != entry)
    return makeError("entry name '" + entry + "' is not a C identifier");
  if (b.dynamicAPI && entry == b.networkName + "_config")
    return makeError("entry name '" + entry + "' is the dynamic API's config symbol");
  if (b.weightsObject && entry == weightsSymbol(b))
    return makeError("entry name '" + entry + "' is the weights object's symbol");
  if (std::error_code ec = sys::fs::create_directories(b.outputDir))
    return makeError(b.outputDir + ": " + ec.message());
  if (!sys::fs::is_directory(b.outputDir))
    return makeError(b.outputDir + ": exists and is not a directory");

  BundleResult result;
  EMBER_ASSIGN_OR_RETURN(Function * F, mainFunction(*M));
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend,
                         createBackend(opts.backend, opts.backendOptions));
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<IRFunction> IR,
                         compileToPlannedIR(*F, *backend, opts, result.summary));
  std::vector<Placement> places = placements(*IR);
  auto path = [&](StringRef suffix) {
    SmallString<256> p(b.outputDir);
    sys::path::append(p, b.networkName + suffix);
    return std::string(p.str());
  };

  ObjectOptions oo;
  oo.path = path(".o");
  oo.entryName = entry;
  if (b.dynamicAPI)
    oo.configName = b.networkName + "_config";
  for (const Placement &p : places)
    oo.symbols.push_back({p.var->getName().str(), p.var->offset, p.var->sizeInBytes(), p.isInput});
  PhaseClock clock(&result.summary.phaseMillis);
  PhaseTimes backendPhases;
  EMBER_ASSIGN_OR_RETURN(ObjectInfo obj, backend->emitObject(*IR, oo, &backendPhases));
  if (opts.backendOptions.instrument && !obj.instrumented)
    return makeError("-instrument: the " + backend->getName() +
                     " backend's bundles record no events; use -backend=CPU");
  clock.lap("backend compile", backendPhases);
  result.files.push_back(oo.path);

  PhaseTimes fileParts; // the weights object's time, within "bundle files"
  {
    EMBER_TRY(checkMemoryBudget(IR->constantSize, "the bundle's constant weights"));
    std::vector<uint8_t> constants(IR->constantSize);
    EMBER_TRY(backend->writeConstants(*IR, constants.data()));
    EMBER_TRY(writeFile(path(".h"), [&](raw_ostream &os) {
      writeHeader(os, *IR, b, entry, places, obj);
    }));
    result.files.push_back(path(".h"));
    if (b.weightsBin) {
      EMBER_TRY(writeFile(path(".weights.bin"), [&](raw_ostream &os) {
        os.write(reinterpret_cast<const char *>(constants.data()), constants.size());
      }));
      result.files.push_back(path(".weights.bin"));
    }
    if (b.weightsText) {
      EMBER_TRY(writeFile(path(".weights.txt"),
                          [&](raw_ostream &os) { writeWeightsText(os, constants); }));
      result.files.push_back(path(".weights.txt"));
    }
    if (b.weightsObject) {
      // LLVM holds the bytes twice more while it emits them: as the global's initializer and
      // as the object's section.
      EMBER_TRY(checkMemoryBudget(3 * IR->constantSize, "the bundle's weights object"));
      PhaseClock objectClock(&fileParts);
      EMBER_TRY(backend->emitConstantsObject(constants, weightsSymbol(b), path(".weights.o")));
      objectClock.lap("weights object");
      result.files.push_back(path(".weights.o"));
    }
    EMBER_TRY(writeFile(path(".json"), [&](raw_ostream &os) {
      writeManifest(os, *IR, b, entry, places, obj);
    }));
    result.files.push_back(path(".json"));
  }
  clock.lap("bundle files", fileParts);
  result.triple = obj.triple;
  result.ir = std::move(IR);
  result.function = F;
  result.module = std::move(M);
  return std::move(result);
}

} // namespace ember
