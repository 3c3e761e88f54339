// Interpreter kernels: reductions and selections along axes (Reduce, ArgMax/ArgMin, CumSum,
// TopK), for every numeric element kind. Floats compute in double; integer sums and products
// wrap around as numpy's do.
#include "ReduceUtils.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <numeric>
#include <optional>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

template <typename A> bool isNaN(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return std::isnan(v);
  else
    return false;
}

/// max and min that propagate NaN, as numpy's.
template <typename A> A maxOf(A a, A b) {
  if (isNaN(a) || isNaN(b))
    return isNaN(a) ? a : b;
  return a < b ? b : a;
}
template <typename A> A minOf(A a, A b) {
  if (isNaN(a) || isNaN(b))
    return isNaN(a) ? a : b;
  return b < a ? b : a;
}

/// |v|, wrapping for the most negative integer.
template <typename A> A absOf(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return std::fabs(v);
  else if constexpr (std::is_signed_v<A>)
    return v < 0 ? A(uint64_t(0) - uint64_t(v)) : v;
  else
    return v;
}

/// The smallest and largest values of T in the type kernels compute in: what max and min of
/// nothing give.
template <typename T> Accum<T> lowestOf() {
  if constexpr (isFloatStorage<T>)
    return -std::numeric_limits<double>::infinity();
  else
    return Accum<T>(std::numeric_limits<T>::lowest());
}
template <typename T> Accum<T> highestOf() {
  if constexpr (isFloatStorage<T>)
    return std::numeric_limits<double>::infinity();
  else
    return Accum<T>(std::numeric_limits<T>::max());
}

enum class Reduction { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

/// The reduction of one group: every element of the group is folded into an accumulator of
/// type A starting at \p init by \p step(acc, value); \p finish(acc, group) gives the result.
template <typename T, typename A, typename Step, typename Finish>
void reduceGroups(const KernelContext &ctx, A init, Step step, Finish finish) {
  TensorArg x = ctx.in(ops::Reduce::Input), y = ctx.out();
  const T *in = x.as<T>();
  T *out = y.as<T>();
  std::vector<A> acc(y.numElements(), init);
  forEachReduced(x.dims(), axesMask(x.dims().size(), ctx.attr<AttrKind::Axes>()),
                 [&](size_t i, size_t g) { acc[g] = step(acc[g], A(load(in[i]))); });
  for (size_t g = 0; g < acc.size(); ++g)
    out[g] = toStorage<T>(finish(acc[g], g));
}

template <typename T> Error reduce(const KernelContext &ctx, Reduction r) {
  using A = Accum<T>;
  size_t groups = ctx.out().numElements();
  double count = groups ? double(ctx.in(ops::Reduce::Input).numElements() / groups) : 0.0;
  auto same = [](auto a, size_t) { return a; };
  switch (r) {
  case Reduction::Sum:
    reduceGroups<T>(
        ctx, A(0), [](A a, A v) { return wrapAdd(a, v); }, same);
    break;
  case Reduction::SumSquare:
    reduceGroups<T>(
        ctx, A(0), [](A a, A v) { return wrapAdd(a, wrapMul(v, v)); }, same);
    break;
  case Reduction::L1:
    reduceGroups<T>(
        ctx, A(0), [](A a, A v) { return wrapAdd(a, absOf(v)); }, same);
    break;
  case Reduction::Prod:
    reduceGroups<T>(
        ctx, A(1), [](A a, A v) { return wrapMul(a, v); }, same);
    break;
  case Reduction::Max:
    reduceGroups<T>(
        ctx, lowestOf<T>(), [](A a, A v) { return maxOf(a, v); }, same);
    break;
  case Reduction::Min:
    reduceGroups<T>(
        ctx, highestOf<T>(), [](A a, A v) { return minOf(a, v); }, same);
    break;
  // The rest are real-valued whatever T is: they run in double.
  case Reduction::Mean:
    reduceGroups<T>(ctx, 0.0, std::plus<double>(), [&](double a, size_t) { return a / count; });
    break;
  case Reduction::L2:
    reduceGroups<T>(
        ctx, 0.0, [](double a, double v) { return a + v * v; },
        [](double a, size_t) { return std::sqrt(a); });
    break;
  case Reduction::LogSum:
    reduceGroups<T>(ctx, 0.0, std::plus<double>(), [](double a, size_t) { return std::log(a); });
    break;
  case Reduction::LogSumExp: {
    // log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the group's max: no overflow.
    TensorArg x = ctx.in(ops::Reduce::Input);
    const T *in = x.as<T>();
    SmallVector<bool, 6> mask = axesMask(x.dims().size(), ctx.attr<AttrKind::Axes>());
    std::vector<double> maxes(groups, -std::numeric_limits<double>::infinity());
    forEachReduced(x.dims(), mask,
                   [&](size_t i, size_t g) { maxes[g] = maxOf(maxes[g], double(load(in[i]))); });
    std::vector<double> sums(groups, 0.0);
    forEachReduced(x.dims(), mask, [&](size_t i, size_t g) {
      sums[g] += std::exp(double(load(in[i])) - maxes[g]);
    });
    T *out = ctx.out().as<T>();
    for (size_t g = 0; g < groups; ++g)
      out[g] = toStorage<T>(std::isinf(maxes[g]) ? maxes[g] : maxes[g] + std::log(sums[g]));
    break;
  }
  }
  return Error::success();
}

/// Whether \p a should replace the best so far \p b: larger (or smaller) wins, NaN beats
/// numbers (numpy's argmax and argmin both return the first NaN).
template <bool Largest, typename A> bool beats(A a, A b) {
  if (isNaN(a) || isNaN(b))
    return isNaN(a) && !isNaN(b);
  return Largest ? a > b : a < b;
}
template <typename A> bool ties(A a, A b) { return a == b || (isNaN(a) && isNaN(b)); }

template <bool Largest> Error runArgSelect(const KernelContext &ctx) {
  TensorArg x = ctx.in(0), y = ctx.out();
  AxisView view(x.dims(), size_t(ctx.attr<AttrKind::Axis>()));
  bool selectLast = ctx.attr<AttrKind::SelectLastIndex>() != 0;
  int64_t *out = y.as<int64_t>();
  return dispatchNumericKinds(ctx, x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    const T *in = x.as<T>();
    // The result has the axis at size 1, so line (o, i) lands at o * inner + i == line.
    for (size_t line = 0; line < view.lines(); ++line) {
      size_t start = view.lineStart(line), best = 0;
      auto bestVal = load(in[start]);
      for (size_t k = 1; k < view.len; ++k) {
        auto v = load(in[start + k * view.inner]);
        if (beats<Largest>(v, bestVal) || (selectLast && ties(v, bestVal))) {
          best = k;
          bestVal = v;
        }
      }
      out[line] = int64_t(best);
    }
    return Error::success();
  });
}

} // namespace

Error runReduce(const KernelContext &ctx) {
  const std::string &how = ctx.attr<AttrKind::Reduction>();
  std::optional<Reduction> r = StringSwitch<std::optional<Reduction>>(how)
                                   .Case("sum", Reduction::Sum)
                                   .Case("mean", Reduction::Mean)
                                   .Case("max", Reduction::Max)
                                   .Case("min", Reduction::Min)
                                   .Case("prod", Reduction::Prod)
                                   .Case("l1", Reduction::L1)
                                   .Case("l2", Reduction::L2)
                                   .Case("log_sum", Reduction::LogSum)
                                   .Case("log_sum_exp", Reduction::LogSumExp)
                                   .Case("sum_square", Reduction::SumSquare)
                                   .Default(std::nullopt);
  if (!r)
    return ctx.unsupported("unknown reduction '" + how + "'");
  return dispatchNumericKinds(ctx, ctx.out().type.kind,
                              [&](auto tag) { return reduce<decltype(tag)>(ctx, *r); });
}

Error runArgMax(const KernelContext &ctx) { return runArgSelect<true>(ctx); }
Error runArgMin(const KernelContext &ctx) { return runArgSelect<false>(ctx); }

Error runCumSum(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::CumSum::Input), y = ctx.out();
  AxisView view(x.dims(), size_t(ctx.attr<AttrKind::Axis>()));
  bool exclusive = ctx.attr<AttrKind::Exclusive>() != 0;
  bool reverse = ctx.attr<AttrKind::Reverse>() != 0;
  return dispatchNumericKinds(ctx, x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    const T *in = x.as<T>();
    T *out = y.as<T>();
    for (size_t line = 0; line < view.lines(); ++line) {
      size_t start = view.lineStart(line);
      Accum<T> sum = 0;
      for (size_t step = 0; step < view.len; ++step) {
        size_t at = start + (reverse ? view.len - 1 - step : step) * view.inner;
        Accum<T> v = load(in[at]);
        if (exclusive)
          out[at] = toStorage<T>(sum);
        sum = wrapAdd(sum, v);
        if (!exclusive)
          out[at] = toStorage<T>(sum);
      }
    }
    return Error::success();
  });
}

Error runTopK(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::TopK::Input);
  TensorArg values = ctx.out(ops::TopK::Values), indices = ctx.out(ops::TopK::Indices);
  AxisView view(x.dims(), size_t(ctx.attr<AttrKind::Axis>()));
  size_t k = size_t(ctx.attr<AttrKind::Count>()); // the shape rule keeps it <= the axis length
  bool largest = ctx.attr<AttrKind::Largest>() != 0;
  return dispatchNumericKinds(ctx, x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    const T *in = x.as<T>();
    T *outValues = values.as<T>();
    int64_t *outIndices = indices.as<int64_t>();
    std::vector<size_t> order(view.len);
    for (size_t line = 0; line < view.lines(); ++line) {
      size_t start = view.lineStart(line);
      auto at = [&](size_t j) { return load(in[start + j * view.inner]); };
      std::iota(order.begin(), order.end(), size_t(0));
      // A stable sort keeps equal values in index order: ties go to the lower index.
      // NaN ranks above every number, as in numpy's sort: first when largest, else last.
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        auto va = at(a), vb = at(b);
        if (largest)
          return beats<true>(va, vb);
        return !isNaN(va) && (isNaN(vb) || va < vb);
      });
      // The results have the axis at length k: element j of line (o, i) is at
      // (o * k + j) * inner + i.
      size_t o = line / view.inner, i = line % view.inner;
      for (size_t j = 0; j < k; ++j) {
        size_t dst = (o * k + j) * view.inner + i;
        outValues[dst] = in[start + order[j] * view.inner];
        outIndices[dst] = int64_t(order[j]);
      }
    }
    return Error::success();
  });
}

bool supportsReduce(const Node &n) { return isNumericKind(resultKind(n)); }
bool supportsArgMax(const Node &n) { return isNumericKind(n.getOperand(0).getType().kind); }
bool supportsArgMin(const Node &n) { return isNumericKind(n.getOperand(0).getType().kind); }
bool supportsCumSum(const Node &n) { return isNumericKind(resultKind(n)); }
bool supportsTopK(const Node &n) { return isNumericKind(resultKind(n)); }

} // namespace interp
} // namespace ember
