// The one implementation of FGD's and our fragmentation measure and score (fragmentation.h).
#include "scheduler/fragmentation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace tessera::frag {

std::span<const int32_t> gpusOf(const NodeView& n) {
  return {n.left.data(), static_cast<size_t>(std::clamp(n.gpus, 0, kMaxGpusPerNode))};
}

std::vector<int> ascendingByLeft(const NodeView& n) {
  std::vector<int> order(gpusOf(n).size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return n.left[static_cast<size_t>(a)] < n.left[static_cast<size_t>(b)];
  });
  return order;
}

namespace {

// The reference's fragment kinds, in the order its FragAmount array sums them.
enum FragKind {
  kQ1LackBoth,
  kQ2LackGpu,
  kQ3Satisfied,
  kQ4LackCpu,
  kXlSatisfied,
  kXrLackCpu,
  kNoAccess
};

}  // namespace

int64_t idleMilli(const NodeView& n) {
  int64_t sum = 0;
  for (int32_t left : gpusOf(n)) sum += left;
  return sum;
}

int fullyFreeGpus(const NodeView& n) {
  return gpusWithAtLeast(n, kMilliPerGpu);
}

int gpusWithAtLeast(const NodeView& n, int32_t milli) {
  int count = 0;
  for (int32_t left : gpusOf(n)) count += left >= milli ? 1 : 0;
  return count;
}

bool gpuFilterPasses(const NodeView& n, const PodDemand& p) {
  if (isCpuOnly(p)) return true;
  if (n.gpus <= 0 || !modelAllowed(p, n.model)) return false;
  return gpusWithAtLeast(n, p.milli) >= p.numGpu;
}

NodeView withPod(NodeView n, const PodDemand& p, int gpu) {
  n.cpuLeft -= p.cpu;
  n.memLeft -= p.mem;
  if (isCpuOnly(p)) return n;
  if (isSharing(p) && gpu >= 0 && gpu < n.gpus) {
    n.left[static_cast<size_t>(gpu)] -= p.milli;
    return n;
  }
  int needed = p.numGpu;
  for (int g : ascendingByLeft(n)) {
    if (needed == 0) break;
    auto& left = n.left[static_cast<size_t>(g)];
    if (left >= p.milli) {
      left -= p.milli;
      --needed;
    }
  }
  return n;
}

std::vector<TypicalPod> selectTypicalPods(std::vector<PodClassCount> classes, double threshold) {
  // Count descending, then the tuple descending (the reference sorts Reverse(Less)).
  std::sort(classes.begin(), classes.end(), [](const PodClassCount& a, const PodClassCount& b) {
    if (a.count != b.count) return a.count > b.count;
    return std::tie(a.demand.cpu, a.demand.milli, a.demand.numGpu, a.spec) >
           std::tie(b.demand.cpu, b.demand.milli, b.demand.numGpu, b.spec);
  });
  double total = 0;
  for (const auto& c : classes) total += c.count;
  const double expected = threshold * total;
  double cumulative = 0;
  size_t taken = 0;
  while (cumulative < expected && taken < classes.size()) cumulative += classes[taken++].count;
  std::vector<TypicalPod> out;
  out.reserve(taken);
  // Same arithmetic as the reference: share of the total, then divided by the kept share.
  const double kept = taken == classes.size() ? 1.0 : cumulative / total;
  for (size_t i = 0; i < taken; ++i)
    out.push_back({classes[i].demand, classes[i].count / total / kept});
  return out;
}

namespace {

bool canHostOnGpus(const NodeView& n, const PodDemand& t) {
  return gpusWithAtLeast(n, t.milli) >= std::max(t.numGpu, 1);
}

int64_t milliOnGpusBelow(const NodeView& n, int32_t milli) {
  int64_t sum = 0;
  for (int32_t left : gpusOf(n))
    if (left < milli) sum += left;
  return sum;
}

FragKind fragKind(const NodeView& n, const PodDemand& t) {
  const bool cpuOk = n.cpuLeft >= t.cpu;
  if (t.milli == 0 || t.numGpu == 0) return cpuOk ? kXlSatisfied : kXrLackCpu;
  if (!modelAllowed(t, n.model)) return kNoAccess;
  if (canHostOnGpus(n, t)) return cpuOk ? kQ3Satisfied : kQ4LackCpu;
  return cpuOk ? kQ2LackGpu : kQ1LackBoth;
}

}  // namespace

int64_t fragmentFor(const NodeView& n, const PodDemand& t) {
  if (fragKind(n, t) == kQ3Satisfied) return milliOnGpusBelow(n, t.milli);
  return idleMilli(n);
}

double nodeFragmentation(const NodeView& n, std::span<const TypicalPod> typical) {
  std::array<double, kNoAccess + 1> amount{};
  const auto idle = static_cast<double>(idleMilli(n));
  for (const auto& t : typical) {
    const FragKind kind = fragKind(n, t.demand);
    if (kind == kQ3Satisfied) {
      const auto stranded = static_cast<double>(milliOnGpusBelow(n, t.demand.milli));
      amount[kQ2LackGpu] += t.weight * stranded;
    } else {
      amount[static_cast<size_t>(kind)] += t.weight * idle;
    }
  }
  double sum = 0;
  for (size_t k = 0; k < amount.size(); ++k)
    if (k != kQ3Satisfied) sum += amount[k];
  return sum;
}

int64_t reachFragmentFor(const NodeView& n, const PodDemand& t, bool cpuReach, bool gpuReach) {
  const int64_t idle = idleMilli(n);
  if (t.milli == 0 || t.numGpu == 0 || !modelAllowed(t, n.model)) return idle;
  std::array<int32_t, kMaxGpusPerNode> usable{};
  int count = 0;
  for (int32_t left : gpusOf(n))
    if (left >= t.milli) usable[static_cast<size_t>(count++)] = left;
  const int perPod = std::max(t.numGpu, 1);
  if (count < perPod || n.cpuLeft < t.cpu) return idle;  // not even one pod fits
  int64_t reached = gpuReach ? count / perPod * perPod : count;
  if (cpuReach && t.cpu > 0) reached = std::min<int64_t>(reached, n.cpuLeft / t.cpu * perPod);
  // Insertion sort: at most 8 values (std::sort trips GCC's -Warray-bounds here).
  for (size_t i = 1; i < static_cast<size_t>(count); ++i)
    for (size_t j = i; j > 0 && usable[j] < usable[j - 1]; --j) std::swap(usable[j], usable[j - 1]);
  int64_t used = 0;
  for (size_t i = 0; i < static_cast<size_t>(reached); ++i) used += usable[i];
  return idle - used;
}

double nodeReachFragmentation(const NodeView& n, std::span<const TypicalPod> typical, bool cpuReach,
                              bool gpuReach) {
  double sum = 0;
  for (const auto& t : typical)
    sum += t.weight * static_cast<double>(reachFragmentFor(n, t.demand, cpuReach, gpuReach));
  return sum;
}

int64_t fgdScore(double before, double after, double scale) {
  const double x = (before - after) / scale;
  return static_cast<int64_t>(1.0 / (1.0 + std::exp(-x)) * 100.0);
}

double fragmentation(const Measure& m, const NodeView& n, std::span<const TypicalPod> typical) {
  if (m.reference) return nodeFragmentation(n, typical);
  const double reach = nodeReachFragmentation(n, typical, m.cpuReach, m.gpuReach);
  if (m.reachWeight >= 1) return reach;
  return m.reachWeight * reach + (1 - m.reachWeight) * nodeFragmentation(n, typical);
}

}  // namespace tessera::frag
