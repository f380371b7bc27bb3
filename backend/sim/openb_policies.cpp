#include "sim/openb_policies.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace tessera::openb {

uint64_t uniformBelow(Rng& rng, uint64_t n) {
  if (n <= 1) return 0;
  const uint64_t limit =
      std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % n;
}

int pickUniformArgmax(std::span<const int> candidates, std::span<const double> scores, Rng& rng) {
  const double best = *std::max_element(scores.begin(), scores.end());
  const auto ties = static_cast<uint64_t>(std::count(scores.begin(), scores.end(), best));
  uint64_t k = uniformBelow(rng, ties);
  for (size_t i = 0; i < candidates.size(); ++i)
    if (scores[i] == best && k-- == 0) return candidates[i];
  return candidates.front();  // unreachable: k < ties
}

int pickArgmax(const ClusterState& c, std::span<const int> candidates,
               std::span<const double> scores, Rng& rng) {
  if (c.tieRank.empty()) return pickUniformArgmax(candidates, scores, rng);
  const double best = *std::max_element(scores.begin(), scores.end());
  // Lower key wins: (fully free GPUs when the engine's rule is asked for, rank).
  auto key = [&](int node) {
    const auto i = static_cast<size_t>(node);
    return std::pair(c.fewestFreeFirst ? fullyFreeGpus(c.nodes[i]) : 0, c.tieRank[i]);
  };
  int pick = -1;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (scores[i] == best && (pick < 0 || key(candidates[i]) < key(pick))) pick = candidates[i];
  return pick;
}

int PlacementPolicy::chooseSharedGpu(const ClusterState& c, int node, const PodDemand& pod, Rng&) {
  return bestFitGpu(c.nodes[static_cast<size_t>(node)], pod.milli);
}

namespace {

// --- Baselines ---------------------------------------------------------------------------------

class RandomPolicy final : public PlacementPolicy {
 public:
  int chooseNode(const ClusterState&, const PodDemand&, std::span<const int> feasible,
                 Rng& rng) override {
    return feasible[uniformBelow(rng, feasible.size())];
  }
  // Uniform over the GPUs that hold the pod (the reference's reservoir sampling).
  int chooseSharedGpu(const ClusterState& c, int node, const PodDemand& pod, Rng& rng) override {
    const NodeView& n = c.nodes[static_cast<size_t>(node)];
    uint64_t k = uniformBelow(rng, static_cast<uint64_t>(gpusWithAtLeast(n, pod.milli)));
    for (int g = 0; g < n.gpus; ++g)
      if (n.left[static_cast<size_t>(g)] >= pod.milli && k-- == 0) return g;
    return -1;
  }
};

// A baseline whose node score is a function of (node, tags, pod); ties as the experiment breaks
// them (pickArgmax). BestFit's min-max normalisation keeps the argmax set, so it is not needed.
class ScoredPolicy final : public PlacementPolicy {
 public:
  using Score = std::function<int64_t(const NodeView&, const GpuTags&, const PodDemand&)>;
  explicit ScoredPolicy(Score score) : score_(std::move(score)) {}

  int chooseNode(const ClusterState& c, const PodDemand& pod, std::span<const int> feasible,
                 Rng& rng) override {
    scores_.resize(feasible.size());
    for (size_t i = 0; i < feasible.size(); ++i) {
      const auto n = static_cast<size_t>(feasible[i]);
      scores_[i] = static_cast<double>(score_(c.nodes[n], c.tags[n], pod));
    }
    return pickArgmax(c, feasible, scores_, rng);
  }

 private:
  Score score_;
  std::vector<double> scores_;
};

// --- FGD and ours ------------------------------------------------------------------------------

// A node state as fragmentation sees it: model, CPU left and the multiset of free GPU milli (GPU
// order and memory do not change F). Packed so identical nodes share one cache entry.
struct StateKey {
  uint64_t cpu = 0, head = 0, tail = 0;
  bool operator==(const StateKey&) const = default;
};
struct StateKeyHash {
  size_t operator()(const StateKey& k) const {
    uint64_t h = k.cpu * 0x9e3779b97f4a7c15ull;
    h ^= k.head + 0x7f4a7c159e3779b9ull + (h << 6) + (h >> 2);
    h ^= k.tail + 0x94d049bb133111ebull + (h << 6) + (h >> 2);
    return static_cast<size_t>(h ^ (h >> 31));
  }
};

// Free milli sorted descending (unused slots trail) and memory dropped: the canonical state.
NodeView canonical(NodeView n) {
  std::sort(n.left.begin(), n.left.begin() + std::clamp(n.gpus, 0, kMaxGpusPerNode),
            std::greater<>());
  n.memLeft = 0;
  return n;
}

StateKey keyOf(const NodeView& sorted) {
  StateKey k;
  k.cpu = static_cast<uint64_t>(sorted.cpuLeft);
  k.head = static_cast<uint64_t>(sorted.model) | static_cast<uint64_t>(sorted.gpus) << 8;
  for (size_t g = 0; g < 4; ++g) k.head |= static_cast<uint64_t>(sorted.left[g]) << (12 + 12 * g);
  for (size_t g = 4; g < 8; ++g) k.tail |= static_cast<uint64_t>(sorted.left[g]) << (12 * (g - 4));
  return k;
}

// Interns node states and memoises F(state) for the current target mix. Only the node that
// receives a pod changes, and hypothetical states recur across pods, so almost every F is a hit.
class FragCache {
 public:
  explicit FragCache(const frag::Measure& measure) : measure_(measure) {}

  int idOf(const NodeView& n) {
    const NodeView sorted = canonical(n);
    auto [it, inserted] = ids_.try_emplace(keyOf(sorted), static_cast<int>(states_.size()));
    if (inserted) {
      states_.push_back(sorted);
      frag_.push_back(0);
      epochOf_.push_back(0);
    }
    return it->second;
  }
  [[nodiscard]] const NodeView& state(int id) const { return states_[static_cast<size_t>(id)]; }
  double frag(int id) {
    const auto i = static_cast<size_t>(id);
    if (epochOf_[i] != epoch_) {
      frag_[i] = frag::fragmentation(measure_, states_[i], typical_);
      epochOf_[i] = epoch_;
    }
    return frag_[i];
  }
  // A new target mix invalidates every memoised F (lazily).
  void setTypical(std::vector<TypicalPod> typical) {
    typical_ = std::move(typical);
    ++epoch_;
  }
  [[nodiscard]] size_t size() const { return states_.size(); }

 private:
  frag::Measure measure_;
  std::unordered_map<StateKey, int, StateKeyHash> ids_;
  std::vector<NodeView> states_;
  std::vector<double> frag_;
  std::vector<uint32_t> epochOf_;
  uint32_t epoch_ = 1;
  std::vector<TypicalPod> typical_;
};

struct FragOptions {
  bool learnOnline = false;  // target mix from the pods seen so far instead of the whole trace
  frag::Measure measure = frag::kFgdMeasure;  // or ours, CPU-aware (reachFragmentFor)
  double mixCoverage = 0.95;  // online mix: classes taken by count until this share is covered
};

// The target mix learnt online from the pods seen so far (no oracle): every arriving pod's class
// (cpu, per-GPU milli, GPU count, models) is counted and the mix is the top `coverage` by count
// (the reference selects its typical pods so, at 95 %; the engine's mix takes every shape). It is
// rebuilt at 1, 2, 4, ... 512 pods and then every 512, so F's cache stays valid most of the time;
// the shuffled arrivals make it converge fast.
class OnlineMix {
 public:
  explicit OnlineMix(double coverage) : coverage_(coverage) {}
  // True when the mix was rebuilt.
  bool observe(const PodDemand& p) {
    ++counts_[std::make_tuple(p.cpu, p.milli, p.numGpu, p.models)];
    ++seen_;
    return seen_ <= 512 ? (seen_ & (seen_ - 1)) == 0 : seen_ % 512 == 0;
  }
  [[nodiscard]] std::vector<TypicalPod> mix() const {
    std::vector<PodClassCount> classes;
    classes.reserve(counts_.size());
    for (const auto& [key, count] : counts_) {
      PodDemand d;
      std::tie(d.cpu, d.milli, d.numGpu, d.models) = key;
      classes.push_back({d, std::to_string(d.models), static_cast<double>(count)});
    }
    return selectTypicalPods(std::move(classes), coverage_);
  }

 private:
  double coverage_;
  std::map<std::tuple<int64_t, int32_t, int, uint32_t>, int64_t> counts_;
  int64_t seen_ = 0;
};

// FGD (paper Alg. 1) and our variant of it: the node whose placement decreases the expected
// fragmentation most, scored as the reference does; the GPU inside the node likewise.
class FragPolicy final : public PlacementPolicy {
  // F through the state cache: the engine's function, memoised per canonical state.
  struct CachedFrag {
    FragCache* cache;
    double operator()(const NodeView& v) const { return cache->frag(cache->idOf(v)); }
  };
  CachedFrag cachedFrag() { return {&cache_}; }

 public:
  FragPolicy(const FragOptions& options, std::vector<TypicalPod> typical)
      : options_(options), cache_(options.measure), mix_(options.mixCoverage) {
    cache_.setTypical(std::move(typical));
  }

  void observe(const PodDemand& pod) override {
    if (options_.learnOnline && mix_.observe(pod)) cache_.setTypical(mix_.mix());
  }

  int chooseNode(const ClusterState& c, const PodDemand& pod, std::span<const int> feasible,
                 Rng& rng) override {
    syncNodes(c);
    ++stamp_;
    scores_.resize(feasible.size());
    for (size_t i = 0; i < feasible.size(); ++i)
      scores_[i] = stateScore(nodeState_[static_cast<size_t>(feasible[i])], pod);
    return pickArgmax(c, feasible, scores_, rng);
  }

  // The first GPU (index order) with the best score, as the reference's FGD Reserve.
  int chooseSharedGpu(const ClusterState& c, int node, const PodDemand& pod, Rng&) override {
    return frag::bestMove(c.nodes[static_cast<size_t>(node)], pod, cachedFrag(),
                          options_.measure.scale, 0xffu, options_.measure.exactGpuTies)
        .gpu;
  }

  void placed(const ClusterState& c, int node) override {
    nodeState_[static_cast<size_t>(node)] = cache_.idOf(c.nodes[static_cast<size_t>(node)]);
  }

 private:
  void syncNodes(const ClusterState& c) {
    if (nodeState_.size() == c.nodes.size()) return;
    nodeState_.clear();
    for (const auto& n : c.nodes) nodeState_.push_back(cache_.idOf(n));
  }

  // The node score for every node in state `id`, memoised per pod (identical nodes are common).
  double stateScore(int id, const PodDemand& pod) {
    const auto i = static_cast<size_t>(id);
    if (i >= stateStamp_.size()) {
      stateStamp_.resize(std::max(cache_.size(), i + 1) * 2, 0);
      stateMemo_.resize(stateStamp_.size(), 0);
    }
    if (stateStamp_[i] == stamp_) return stateMemo_[i];
    const double s = computeStateScore(id, pod);
    stateStamp_[i] = stamp_;
    stateMemo_[i] = s;
    return s;
  }

  double computeStateScore(int id, const PodDemand& pod) {
    const NodeView n = cache_.state(id);  // a copy: the cache may grow while scoring
    return frag::bestMoveFrom(cache_.frag(id), n, pod, cachedFrag(), options_.measure.scale).score;
  }

  FragOptions options_;
  FragCache cache_;
  OnlineMix mix_;
  std::vector<int> nodeState_;        // state id per node
  std::vector<uint32_t> stateStamp_;  // per state id: the pod whose score stateMemo_ holds
  std::vector<double> stateMemo_;
  std::vector<double> scores_;
  uint32_t stamp_ = 0;
};

// --- Registry ----------------------------------------------------------------------------------

using Factory = std::function<std::unique_ptr<PlacementPolicy>(const PolicyContext&)>;
struct Entry {
  std::string name;
  bool ablation;  // kept to reproduce docs/openb-experiment.md's ablation rows, not a baseline
  Factory make;
};

std::unique_ptr<PlacementPolicy> scored(ScoredPolicy::Score s) {
  return std::make_unique<ScoredPolicy>(std::move(s));
}

Factory fragPolicy(FragOptions options, bool oracleMix) {
  return [options, oracleMix](const PolicyContext& ctx) {
    return std::make_unique<FragPolicy>(
        options, oracleMix ? ctx.traceTypicalPods : std::vector<TypicalPod>{});
  };
}

constexpr frag::Measure kFgd = frag::kFgdMeasure;
constexpr frag::Measure kReach = frag::kTesseraMeasure;

frag::Measure exact(frag::Measure m) {
  m.scale = 0;
  return m;
}

const std::vector<Entry>& registry() {
  static const std::vector<Entry> r = {
      {"random", false, [](const PolicyContext&) { return std::make_unique<RandomPolicy>(); }},
      {"dot-product", false,
       [](const PolicyContext&) {
         return scored([](const NodeView& n, const GpuTags&, const PodDemand& p) {
           return dotProductScore(n, p);
         });
       }},
      {"gpu-clustering", false,
       [](const PolicyContext&) {
         return scored([](const NodeView& n, const GpuTags& t, const PodDemand& p) {
           return gpuClusteringScore(n, t, p);
         });
       }},
      {"gpu-packing", false,
       [](const PolicyContext&) {
         return scored([](const NodeView& n, const GpuTags&, const PodDemand& p) {
           return gpuPackingScore(n, p);
         });
       }},
      {"best-fit", false,
       [](const PolicyContext&) {
         return scored([](const NodeView& n, const GpuTags&, const PodDemand& p) {
           return bestFitScore(n, p);
         });
       }},
      // The reference FGD: its target mix is the whole untuned trace (an oracle).
      {"fgd", false, fragPolicy({false, kFgd}, true)},
      // Ours, no oracle: the mix is learnt online from the pods seen so far; CPU-aware fragments.
      {"tessera", false, fragPolicy({true, kReach, kTesseraMixCoverage}, false)},
      // Ablations.
      {"fgd-online", true, fragPolicy({true, kFgd}, false)},
      {"fgd-exact", true, fragPolicy({false, exact(kFgd)}, true)},
      {"tessera-oracle", true, fragPolicy({false, kReach}, true)},
      {"tessera-exact", true, fragPolicy({true, exact(kReach)}, false)},
  };
  return r;
}

std::vector<std::string> namesWhere(bool ablation) {
  std::vector<std::string> out;
  for (const auto& e : registry())
    if (e.ablation == ablation) out.push_back(e.name);
  return out;
}

}  // namespace

const std::vector<std::string>& policyNames() {
  static const std::vector<std::string> names = namesWhere(false);
  return names;
}

const std::vector<std::string>& ablationPolicyNames() {
  static const std::vector<std::string> names = namesWhere(true);
  return names;
}

std::optional<TesseraVariant> tesseraVariant(const std::string& name) {
  int cpu = 0, gpu = 0, scale = 0, coverage = 0, used = 0, reach = 100, exactTies = 0;
  if (std::sscanf(name.c_str(), "tessera/c%1dg%1ds%dm%d%n", &cpu, &gpu, &scale, &coverage, &used) !=
      4)
    return std::nullopt;
  // An optional "r<percent>": the reach fragments' weight against FGD's measure.
  int more = 0;
  if (static_cast<size_t>(used) < name.size() &&
      std::sscanf(name.c_str() + used, "r%d%n", &reach, &more) == 1)
    used += more;
  // An optional "e<0|1>": a sharing pod's GPU among tied scores by the lowest F after the move.
  if (static_cast<size_t>(used) < name.size() &&
      std::sscanf(name.c_str() + used, "e%1d%n", &exactTies, &more) == 1)
    used += more;
  if (static_cast<size_t>(used) != name.size() || cpu > 1 || gpu > 1 || scale <= 0 ||
      coverage <= 0 || coverage > 100 || reach < 0 || reach > 100 || exactTies > 1)
    return std::nullopt;
  TesseraVariant v{frag::kTesseraMeasure, coverage / 100.0};
  v.measure.cpuReach = cpu == 1;
  v.measure.gpuReach = gpu == 1;
  v.measure.scale = scale;
  v.measure.reachWeight = reach / 100.0;
  v.measure.exactGpuTies = exactTies == 1;
  return v;
}

std::unique_ptr<PlacementPolicy> makePolicy(const std::string& name, const PolicyContext& ctx) {
  for (const auto& e : registry())
    if (e.name == name) return e.make(ctx);
  if (const auto v = tesseraVariant(name))
    return fragPolicy({true, v->measure, v->mixCoverage}, false)(ctx);
  return nullptr;
}

}  // namespace tessera::openb
