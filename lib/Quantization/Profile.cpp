// Profiles: recording value ranges over runs, their YAML form, and the instrumentation that
// exposes every float value of a compiled function (Quantization.h).
#include "ember/Quantization/Quantization.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace ember {

namespace {

/// The bin of \p v in a histogram of \p bins over [lo, hi].
size_t binOf(double v, double lo, double hi, size_t bins) {
  if (!(hi > lo))
    return 0;
  double b = (v - lo) / (hi - lo) * double(bins);
  return std::min(bins - 1, size_t(std::max(0.0, b)));
}

/// \p p's counts moved onto kProfileBins bins over the wider range [lo, hi]: each old bin's
/// count goes to the new bin that holds the old bin's centre. (A histogram read from a file may
/// have another number of bins.)
void rebin(TensorProfile &p, float lo, float hi) {
  std::vector<uint64_t> wider(kProfileBins, 0);
  double width = (double(p.max) - double(p.min)) / double(p.histogram.size());
  for (size_t b = 0; b < p.histogram.size(); ++b)
    if (p.histogram[b])
      wider[binOf(double(p.min) + (double(b) + 0.5) * width, lo, hi, kProfileBins)] +=
          p.histogram[b];
  p.histogram = std::move(wider);
  p.min = lo;
  p.max = hi;
}

} // namespace

void Profile::record(StringRef key, const Tensor &t) {
  auto [it, inserted] = index_.try_emplace(key, entries_.size());
  if (inserted)
    entries_.push_back({key.str(), TensorProfile()});
  TensorProfile &p = entries_[it->second].second;
  const float *v = t.dataAs<float>();
  size_t n = t.numElements();
  float lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; ++i)
    if (!std::isnan(v[i])) {
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
    }
  if (lo > hi) // nothing but NaNs (or no elements)
    return;
  if (p.empty()) {
    p.min = lo;
    p.max = hi;
    p.histogram.assign(kProfileBins, 0);
  } else if (lo < p.min || hi > p.max || p.histogram.size() != kProfileBins) {
    rebin(p, std::min(lo, p.min), std::max(hi, p.max));
  }
  if (!std::isfinite(p.min) || !std::isfinite(p.max))
    return; // no bins over an infinite range; the range itself says it all
  for (size_t i = 0; i < n; ++i)
    if (!std::isnan(v[i]))
      ++p.histogram[binOf(v[i], p.min, p.max, kProfileBins)];
}

void Profile::set(StringRef key, TensorProfile p) {
  auto [it, inserted] = index_.try_emplace(key, entries_.size());
  if (inserted)
    entries_.push_back({key.str(), std::move(p)});
  else
    entries_[it->second].second = std::move(p);
}

const TensorProfile *Profile::find(StringRef key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

} // namespace ember

// ---- YAML ----------------------------------------------------------------------------------

namespace {
/// A histogram bin's count: a type of our own, so that a histogram is a flow sequence (one line)
/// rather than YAML's default block sequence of one line per bin.
struct BinCount {
  uint64_t value;
};
/// One record as the file holds it.
struct ProfileRecord {
  std::string name;
  float min = 0, max = 0;
  std::vector<BinCount> histogram;
};
} // namespace

LLVM_YAML_IS_FLOW_SEQUENCE_VECTOR(BinCount)
LLVM_YAML_IS_SEQUENCE_VECTOR(ProfileRecord)

namespace llvm {
namespace yaml {
template <> struct ScalarTraits<BinCount> {
  static void output(const BinCount &c, void *ctx, raw_ostream &os) {
    ScalarTraits<uint64_t>::output(c.value, ctx, os);
  }
  static StringRef input(StringRef s, void *ctx, BinCount &c) {
    return ScalarTraits<uint64_t>::input(s, ctx, c.value);
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};
template <> struct MappingTraits<ProfileRecord> {
  static void mapping(IO &io, ProfileRecord &r) {
    io.mapRequired("nodeOutputName", r.name);
    io.mapRequired("min", r.min);
    io.mapRequired("max", r.max);
    io.mapOptional("histogram", r.histogram);
  }
};
} // namespace yaml
} // namespace llvm

namespace ember {

Error writeProfile(const Profile &p, StringRef path) {
  std::vector<ProfileRecord> records;
  for (const auto &[name, tp] : p.entries()) {
    ProfileRecord r{name, tp.min, tp.max, {}};
    for (uint64_t c : tp.histogram)
      r.histogram.push_back({c});
    records.push_back(std::move(r));
  }
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_Text);
  if (ec)
    return makeError(path + ": " + ec.message());
  yaml::Output out(os);
  out << records;
  os.close();
  if (os.has_error())
    return makeError(path + ": " + os.error().message());
  return Error::success();
}

Expected<Profile> readProfile(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return makeError(path + ": " + buf.getError().message());
  std::vector<ProfileRecord> records;
  std::string diagnostics;
  yaml::Input in((*buf)->getBuffer(), nullptr, [](const SMDiagnostic &d, void *ctx) {
    raw_string_ostream os(*static_cast<std::string *>(ctx));
    d.print("", os, /*ShowColors=*/false);
  }, &diagnostics);
  in >> records;
  if (in.error())
    return makeError(path + ": not a profile (a YAML sequence of nodeOutputName, min, max, "
                            "histogram): " +
                     StringRef(diagnostics).trim());
  Profile p;
  for (ProfileRecord &r : records) {
    if (std::isnan(r.min) || std::isnan(r.max) || r.min > r.max)
      return makeError(path + ": '" + r.name + "' has min " + std::to_string(r.min) +
                       " and max " + std::to_string(r.max) + ": not a range");
    TensorProfile tp{r.min, r.max, {}};
    for (BinCount c : r.histogram)
      tp.histogram.push_back(c.value);
    p.set(r.name, std::move(tp));
  }
  return std::move(p);
}

// ---- Keys and instrumentation ---------------------------------------------------------------

std::vector<std::pair<NodeValue, std::string>> profileKeys(const Function &F) {
  std::vector<std::pair<NodeValue, std::string>> keys;
  StringMap<unsigned> seen;
  DenseSet<const Node *> placeholders;
  auto add = [&](NodeValue v) {
    std::string key = v.node->getName().str();
    if (v.resNo)
      key += ":" + std::to_string(v.resNo);
    unsigned repeat = seen[key]++;
    if (repeat)
      key += "#" + std::to_string(repeat);
    keys.push_back({v, std::move(key)});
  };
  for (Node *n : F.topologicalOrder()) {
    // Placeholders the function reads (its inputs) come first, as they are met.
    for (NodeValue v : n->getOperands())
      if (v.node->getKind() == NodeKind::Placeholder && v.getType().kind == ElemKind::Float32 &&
          !static_cast<Placeholder *>(v.node)->isSaveTarget() &&
          placeholders.insert(v.node).second)
        add(v);
    if (n->isStorage())
      continue;
    for (unsigned r = 0; r < n->getNumResults(); ++r)
      if (n->getType(r).kind == ElemKind::Float32)
        add(n->getResult(r));
  }
  return keys;
}

std::vector<ProfiledValue> instrumentForProfiling(Function &F) {
  std::vector<ProfiledValue> values;
  Module &M = *F.getParent();
  for (auto &[v, key] : profileKeys(F)) {
    Placeholder *out =
        M.createPlaceholder(v.getType(), "ember_profile_" + std::to_string(values.size()));
    F.createNodeWithTypes(NodeKind::Save, "ember_profile_save", {v, out->getResult()}, {});
    values.push_back({key, out->getName().str()});
  }
  return values;
}

} // namespace ember
