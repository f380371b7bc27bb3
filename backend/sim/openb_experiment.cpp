#include "sim/openb_experiment.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <tuple>

#include "sim/openb_policies.h"

namespace tessera {

namespace {

using openb::NodeView;
using openb::PodDemand;

// --- The experiment's input, prepared once and shared read-only by every run -------------------

struct Prepared {
  std::vector<NodeView> nodes;    // empty cluster
  std::vector<PodDemand> demand;  // per input pod
  std::vector<size_t> byName;     // input indices sorted by name: the reference's base order
  openb::PolicyContext context;
  int64_t capacityMilli = 0;
};

constexpr int32_t kMaxPodsPerNode = 1001;  // the reference's node "pods" allocatable
constexpr size_t kMaxModels = 32;          // model sets are bit masks

Expected<std::vector<std::string>> modelTable(const std::vector<OpenbNode>& nodes) {
  std::vector<std::string> models;
  for (const auto& n : nodes)
    if (std::find(models.begin(), models.end(), n.model) == models.end()) models.push_back(n.model);
  if (models.size() > kMaxModels)
    return Error{"the openb experiment supports at most 32 GPU models, the nodes have " +
                     std::to_string(models.size()),
                 {}};
  return models;
}

uint32_t modelMask(const std::vector<std::string>& spec, const std::vector<std::string>& models) {
  if (spec.empty()) return openb::kAnyModel;
  uint32_t mask = 0;
  for (size_t m = 0; m < models.size(); ++m)
    if (std::find(spec.begin(), spec.end(), models[m]) != spec.end()) mask |= 1u << m;
  return mask;
}

// The reference's pod annotations: gpu-milli clipped to 1000, and a GPU count without milli
// counts as a CPU-only pod (that is how its filter and FGD treat it).
PodDemand demandOf(const OpenbPodRow& row, const std::vector<std::string>& models) {
  PodDemand d;
  d.cpu = row.cpuMilli;
  d.mem = row.memoryMiB;
  d.milli = std::clamp(row.gpuMilli, 0, static_cast<int>(openb::kMilliPerGpu));
  d.numGpu = d.milli > 0 ? row.numGpu : 0;
  if (d.numGpu == 0) d.milli = 0;
  d.models = d.numGpu == 0 ? openb::kAnyModel : modelMask(row.spec, models);
  return d;
}

std::string joined(const std::vector<std::string>& spec) {
  std::string out;
  for (const auto& s : spec) out += (out.empty() ? "" : "|") + s;
  return out;
}

// The reference's typical pods: every pod of the untuned trace (CPU-only ones included), one
// class per (cpu, milli, count, spec), the top 95 % by count.
std::vector<openb::TypicalPod> traceTypicalPods(const std::vector<OpenbPodRow>& pods,
                                                const std::vector<PodDemand>& demand) {
  std::map<std::tuple<int64_t, int32_t, int, std::string>, openb::PodClassCount> classes;
  for (size_t i = 0; i < pods.size(); ++i) {
    const std::string spec = demand[i].numGpu == 0 ? "" : joined(pods[i].spec);
    auto& c = classes[{demand[i].cpu, demand[i].milli, demand[i].numGpu, spec}];
    c.demand = demand[i];
    c.spec = spec;
    c.count += 1;
  }
  std::vector<openb::PodClassCount> list;
  for (auto& [key, c] : classes) list.push_back(std::move(c));
  return openb::selectTypicalPods(std::move(list), 0.95);
}

Expected<Prepared> prepare(const std::vector<OpenbNode>& nodes,
                           const std::vector<OpenbPodRow>& pods) {
  TESSERA_TRY(models, modelTable(nodes));
  Prepared p;
  for (const auto& row : nodes) {
    if (row.gpus < 0 || row.gpus > openb::kMaxGpusPerNode)
      return Error{"node '" + row.name + "' has " + std::to_string(row.gpus) +
                       " GPUs; the openb experiment supports 0 to 8 per node",
                   {}};
    NodeView n;
    n.cpuLeft = row.cpuMilli;
    n.memLeft = row.memoryMiB;
    n.gpus = row.gpus;
    n.model = static_cast<int>(std::find(models.begin(), models.end(), row.model) - models.begin());
    std::fill_n(n.left.begin(), row.gpus, openb::kMilliPerGpu);
    p.nodes.push_back(n);
    p.capacityMilli += int64_t{row.gpus} * openb::kMilliPerGpu;
  }
  if (p.capacityMilli == 0) return Error{"the openb experiment needs nodes with GPUs", {}};
  for (const auto& row : pods) p.demand.push_back(demandOf(row, models));
  p.byName.resize(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) p.byName[i] = i;
  std::stable_sort(p.byName.begin(), p.byName.end(),
                   [&](size_t a, size_t b) { return pods[a].name < pods[b].name; });
  p.context.traceTypicalPods = traceTypicalPods(pods, p.demand);
  return p;
}

// --- Workload tuning ---------------------------------------------------------------------------

void shuffle(std::vector<size_t>& v, openb::Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[openb::uniformBelow(rng, i)]);
}

// Drops random pods until the total is at most the target (the reference's tuneDown).
void tuneDown(const Prepared& p, double target, int64_t total, OpenbArrivals& a, openb::Rng& rng) {
  while (static_cast<double>(total) > target && !a.order.empty()) {
    const auto at = static_cast<std::ptrdiff_t>(openb::uniformBelow(rng, a.order.size()));
    total -= openb::totalMilli(p.demand[a.order[static_cast<size_t>(at)]]);
    a.order.erase(a.order.begin() + at);
  }
  a.originals = a.order.size();
}

// Appends clones sampled with replacement from the name-sorted pods (the reference's tuneUp). It
// stops on the clone's per-GPU milli, not its total, so a multi-GPU clone can overshoot, and a
// CPU-only clone never stops it.
void tuneUp(const Prepared& p, double target, int64_t total, OpenbArrivals& a, openb::Rng& rng) {
  a.originals = a.order.size();
  if (total == 0) return;  // only CPU-only pods: the reference's loop would never end
  for (;;) {
    const size_t pick = p.byName[openb::uniformBelow(rng, p.byName.size())];
    const PodDemand& d = p.demand[pick];
    if (static_cast<double>(total + d.milli) > target) return;
    total += openb::totalMilli(d);
    a.order.push_back(pick);
  }
}

// The arrival order: the name-sorted pods shuffled, then tuned to ratio x capacity.
OpenbArrivals tune(const Prepared& p, double ratio, openb::Rng& rng) {
  OpenbArrivals a;
  a.order = p.byName;
  shuffle(a.order, rng);
  int64_t total = 0;
  for (const auto& d : p.demand) total += openb::totalMilli(d);
  const double target = ratio * static_cast<double>(p.capacityMilli);
  if (static_cast<double>(total) > target)
    tuneDown(p, target, total, a, rng);
  else
    tuneUp(p, target, total, a, rng);
  return a;
}

// --- One run -----------------------------------------------------------------------------------

openb::ClusterState emptyCluster(const Prepared& p) {
  openb::ClusterState c;
  c.nodes = p.nodes;
  c.podCount.assign(p.nodes.size(), 0);
  c.tags.assign(p.nodes.size(), {});
  return c;
}

// The kube NodeResourcesFit filter (CPU, memory, pod count) and the Open-Gpu-Share filter.
void feasibleNodes(const openb::ClusterState& c, const PodDemand& d, std::vector<int>& out) {
  out.clear();
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    const NodeView& n = c.nodes[i];
    if (n.cpuLeft < d.cpu || n.memLeft < d.mem || c.podCount[i] >= kMaxPodsPerNode) continue;
    if (openb::gpuFilterPasses(n, d)) out.push_back(static_cast<int>(i));
  }
}

// Whole-GPU pods take the first fully free GPUs under every policy; a sharing pod takes the GPU
// the policy picks; anything else (CPU-only pods) goes as the reference's Sub would place it.
void allocate(openb::ClusterState& c, int node, const PodDemand& d, openb::PlacementPolicy& policy,
              openb::Rng& rng) {
  const auto i = static_cast<size_t>(node);
  NodeView& n = c.nodes[i];
  if (openb::isSharing(d)) {
    n.left[static_cast<size_t>(policy.chooseSharedGpu(c, node, d, rng))] -= d.milli;
  } else if (d.milli == openb::kMilliPerGpu) {
    for (int g : openb::firstFreeGpus(n, d.numGpu)) n.left[static_cast<size_t>(g)] -= d.milli;
  } else {
    n = openb::withPod(n, d);
    n.cpuLeft += d.cpu;  // subtracted once below
    n.memLeft += d.mem;
  }
  n.cpuLeft -= d.cpu;
  n.memLeft -= d.mem;
  ++c.podCount[i];
  openb::addGpuTag(c.tags[i], d);
}

// The reference names node i (in name order) "%04d-" + perm[i] with a per-seed rand.Perm; the
// calibration in docs/openb-experiment.md shows its ties go to the lowest such name.
std::vector<uint32_t> randomRanks(size_t n, openb::Rng& rng) {
  std::vector<size_t> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = i;
  shuffle(perm, rng);
  std::vector<uint32_t> rank(n);
  for (size_t i = 0; i < n; ++i) rank[i] = static_cast<uint32_t>(perm[i]);
  return rank;
}

OpenbRun simulate(const Prepared& p, const OpenbArrivals& arrivals, OpenbTieBreak ties,
                  openb::PlacementPolicy& policy, openb::Rng& rng) {
  OpenbRun run;
  openb::ClusterState c = emptyCluster(p);
  if (ties != OpenbTieBreak::Uniform) c.tieRank = randomRanks(c.nodes.size(), rng);
  c.fewestFreeFirst = ties == OpenbTieBreak::Engine;
  std::vector<OpenbEvent> events;
  events.reserve(arrivals.order.size());
  std::vector<int> feasible;
  for (size_t index : arrivals.order) {
    const PodDemand& d = p.demand[index];
    run.arrivedMilli += openb::totalMilli(d);
    policy.observe(d);
    feasibleNodes(c, d, feasible);
    if (feasible.empty()) {
      ++run.failed;  // dropped for good, as in the reference
    } else {
      const int node = policy.chooseNode(c, d, feasible, rng);
      allocate(c, node, d, policy, rng);
      policy.placed(c, node);
      run.allocatedMilli += openb::totalMilli(d);
    }
    events.push_back({run.arrivedMilli, run.allocatedMilli});
  }
  run.pods = arrivals.order.size();
  run.allocatedByArrived = openbAllocationByArrived(events, p.capacityMilli);
  run.unallocatedAt100 = 100.0 - run.allocatedByArrived[100];
  return run;
}

Error unknownPolicy(const std::string& name) {
  std::string known;
  for (const auto& n : openb::policyNames()) known += (known.empty() ? "" : ", ") + n;
  for (const auto& n : openb::ablationPolicyNames()) known += ", " + n;
  return Error{"unknown placement policy '" + name + "' (known: " + known + ")", {}};
}

OpenbRun runPrepared(const Prepared& p, const OpenbRunSpec& spec) {
  const auto start = std::chrono::steady_clock::now();
  openb::Rng rng(spec.seed);
  OpenbArrivals arrivals;
  if (spec.replayAsGiven) {
    for (size_t i = 0; i < p.demand.size(); ++i) arrivals.order.push_back(i);
    arrivals.originals = p.demand.size();
  } else {
    arrivals = tune(p, spec.tune, rng);
  }
  auto policy = openb::makePolicy(spec.policy, p.context);
  OpenbRun run = simulate(p, arrivals, spec.ties, *policy, rng);
  run.policy = spec.policy;
  run.seed = spec.seed;
  run.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

// Runs share only the read-only input; each owns its policy and RNG, so the result of a run does
// not depend on the thread or the order in which it ran.
std::vector<OpenbRun> runAll(const Prepared& prepared, const std::vector<OpenbRunSpec>& specs,
                             size_t threads) {
  std::vector<OpenbRun> runs(specs.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < specs.size(); i = next++) runs[i] = runPrepared(prepared, specs[i]);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < std::min(threads, specs.size()); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return runs;
}

double round2(double x) {
  return std::nearbyint(x * 100.0) / 100.0;
}

}  // namespace

std::vector<std::string> openbPolicyNames() {
  return openb::policyNames();
}

std::vector<std::string> openbAblationPolicyNames() {
  return openb::ablationPolicyNames();
}

OpenbArrivals tuneOpenbWorkload(const std::vector<OpenbPodRow>& pods, int64_t capacityMilli,
                                double ratio, uint64_t seed) {
  Prepared p;
  p.capacityMilli = capacityMilli;
  for (const auto& row : pods) p.demand.push_back(demandOf(row, {}));
  p.byName.resize(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) p.byName[i] = i;
  std::stable_sort(p.byName.begin(), p.byName.end(),
                   [&](size_t a, size_t b) { return pods[a].name < pods[b].name; });
  openb::Rng rng(seed);
  return tune(p, ratio, rng);
}

std::vector<double> openbAllocationByArrived(const std::vector<OpenbEvent>& events,
                                             int64_t capacityMilli) {
  // The reference's analysis: arrived % rounded half-to-even to a whole bucket, allocation %
  // rounded to 2 decimals per event, averaged per bucket.
  constexpr size_t kBuckets = kOpenbMaxArrivedPercent + 2;  // one more for the a+1 fallback
  std::vector<double> sum(kBuckets, 0.0);
  std::vector<size_t> count(kBuckets, 0);
  const double gpus = static_cast<double>(capacityMilli) / openb::kMilliPerGpu;
  for (const auto& e : events) {
    const double bucket = std::nearbyint(static_cast<double>(e.arrivedMilli) / gpus / 10.0);
    if (bucket < 0 || bucket >= static_cast<double>(kBuckets)) continue;
    const auto b = static_cast<size_t>(bucket);
    sum[b] += round2(static_cast<double>(e.allocatedMilli) / gpus / 10.0);
    ++count[b];
  }
  std::vector<double> out(kOpenbMaxArrivedPercent + 1, std::numeric_limits<double>::quiet_NaN());
  for (size_t a = 0; a < out.size(); ++a) {
    if (count[a] > 0) {
      out[a] = round2(sum[a] / static_cast<double>(count[a]));
      continue;
    }
    double s = 0;
    size_t n = 0;
    for (size_t b = a == 0 ? 0 : a - 1; b <= a + 1; ++b) {
      s += sum[b];
      n += count[b];
    }
    if (n > 0) out[a] = round2(s / static_cast<double>(n));
  }
  return out;
}

Expected<OpenbRun> runOpenbOnce(const std::vector<OpenbNode>& nodes,
                                const std::vector<OpenbPodRow>& pods, const OpenbRunSpec& spec) {
  if (!openb::makePolicy(spec.policy, {})) return unknownPolicy(spec.policy);
  TESSERA_TRY(prepared, prepare(nodes, pods));
  return runPrepared(prepared, spec);
}

Expected<std::vector<OpenbRun>> runOpenbExperiment(const std::vector<OpenbNode>& nodes,
                                                   const std::vector<OpenbPodRow>& pods,
                                                   const OpenbConfig& config) {
  for (const auto& name : config.policies)
    if (!openb::makePolicy(name, {})) return unknownPolicy(name);
  TESSERA_TRY(prepared, prepare(nodes, pods));
  std::vector<OpenbRunSpec> specs;
  for (const auto& policy : config.policies)
    for (uint64_t seed : config.seeds)
      specs.push_back({policy, seed, config.tune, config.ties, false});
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const auto threads =
      static_cast<size_t>(config.threads > 0 ? static_cast<unsigned>(config.threads) : hw);
  return runAll(prepared, specs, threads);
}

}  // namespace tessera
