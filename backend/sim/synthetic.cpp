#include "sim/synthetic.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace tessera {
namespace {

// What the cluster offers each kind of work.
struct Offer {
  int maxGpusPerNode = 0;  // exclusive GPUs on the biggest node
  int fullNodes = 0;       // nodes with maxGpusPerNode exclusive GPUs: what a multi-node gang needs
  std::vector<std::string> migProfiles;  // profiles of the MIG GPUs' models (small ones first)
  bool timeSliced = false;
};

Offer offerOf(const Cluster& c) {
  Offer o;
  std::vector<int> exclusivePerNode;
  for (const Node& n : c.nodes()) {
    int exclusive = 0;
    for (int i = 0; i < n.gpuCount(); ++i) {
      const Gpu& g = c.gpu(n.firstGpu + static_cast<GpuId>(i));
      if (g.sharing.mode == SharingMode::Exclusive) ++exclusive;
      if (g.sharing.mode == SharingMode::TimeSliced) o.timeSliced = true;
      if (g.sharing.mode == SharingMode::Mig && n.gpuModel().mig)
        for (const auto& p : n.gpuModel().mig->profiles)
          if (!p.mediaExtensions && p.memorySlices <= 4 &&
              std::find(o.migProfiles.begin(), o.migProfiles.end(), p.name) == o.migProfiles.end())
            o.migProfiles.push_back(p.name);
    }
    o.maxGpusPerNode = std::max(o.maxGpusPerNode, exclusive);
    exclusivePerNode.push_back(exclusive);
  }
  o.fullNodes = static_cast<int>(
      std::count(exclusivePerNode.begin(), exclusivePerNode.end(), o.maxGpusPerNode));
  return o;
}

class Generator {
 public:
  Generator(const Cluster& c, const SyntheticConfig& cfg)
      : cfg_(cfg), offer_(offerOf(c)), rng_(cfg.seed) {}

  Trace run() {
    Trace t;
    t.source = "synthetic";
    for (const auto& name : cfg_.teams) t.teams.push_back({name, "", 1.0, {}});
    std::exponential_distribution<double> gap(cfg_.arrivalsPerHour / 3600.0);
    double now = 0;
    for (size_t i = 0; i < cfg_.jobs; ++i) {
      TraceJob j = make(pickKind());
      j.job.id = static_cast<JobId>(i + 1);
      j.job.name =
          std::string(workloadClassName(j.job.workloadClass)) + "-" + std::to_string(i + 1);
      j.job.team = cfg_.teams[pick(cfg_.teams.size())];
      j.job.submitTime = static_cast<Seconds>(now);
      t.jobs.push_back(std::move(j));
      now += gap(rng_);
    }
    return t;
  }

 private:
  enum class Kind { Training, Inference, Notebook, Batch };

  Kind pickKind() {
    const double tr = offer_.maxGpusPerNode > 0 ? cfg_.training : 0;
    const double in = offer_.migProfiles.empty() ? 0 : cfg_.inference;
    const double nb = offer_.timeSliced ? cfg_.notebooks : 0;
    const double ba = offer_.maxGpusPerNode > 0 ? cfg_.batch : 0;
    std::discrete_distribution<int> d({tr, in, nb, ba});  // synthesize() checked one is > 0
    return static_cast<Kind>(d(rng_));
  }

  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  // Log-normal runtime around `median` seconds: most jobs short, a few very long.
  Seconds runtime(double median, double sigma, Seconds cap) {
    std::lognormal_distribution<double> d(std::log(median * cfg_.runtimeScale), sigma);
    return std::clamp<Seconds>(static_cast<Seconds>(d(rng_)), 60, cap);
  }

  // Users pad their estimates (1.2x to 3x, rounded up to 5 minutes), as Slurm traces show.
  Seconds estimateOf(Seconds actual) {
    const double pad = std::uniform_real_distribution<double>(1.2, 3.0)(rng_);
    const auto est = static_cast<Seconds>(double(actual) * pad);
    return (est + 299) / 300 * 300;
  }

  TraceJob make(Kind k) {
    TraceJob j;
    Job& job = j.job;
    switch (k) {
      case Kind::Training: {
        const int perNode = std::max(1, offer_.maxGpusPerNode);
        // Gangs: half single-node (1..perNode GPUs), half multi-node (2..8 full nodes).
        if (std::bernoulli_distribution(0.5)(rng_) || offer_.fullNodes < 2) {
          const int sizes[] = {1, 2, 4, 8};
          int g = sizes[pick(4)];
          while (g > perNode) g /= 2;
          job.perTask = {GpuRequest::Kind::Whole, g, {}, 0, 0};
        } else {
          job.tasks = std::min<int>(offer_.fullNodes / 2 + 1, static_cast<int>(2 + pick(7)));
          job.perTask = {GpuRequest::Kind::Whole, perNode, {}, 0, 0};
          job.topology = {TopologyLevel::Leaf, false};
        }
        job.cpusPerTask = 8 * job.perTask.gpus;
        job.memoryMiBPerTask = int64_t{32768} * job.perTask.gpus;
        job.workloadClass = WorkloadClass::Training;
        job.priorityClass =
            std::bernoulli_distribution(0.3)(rng_) ? "production-training" : "experiment";
        job.checkpointInterval = 1800;
        j.runtime = runtime(4 * 3600.0, 1.2, 7 * 86400);
        j.usage = std::bernoulli_distribution(0.3)(rng_) ? UsageProfile::InputBound
                                                         : UsageProfile::ComputeBound;
        break;
      }
      case Kind::Inference:
        job.perTask = {GpuRequest::Kind::Mig, 0,
                       offer_.migProfiles[pick(offer_.migProfiles.size())], 0, 0};
        job.tasks = std::bernoulli_distribution(0.2)(rng_) ? 2 : 1;
        job.cpusPerTask = 4;
        job.memoryMiBPerTask = 16384;
        job.workloadClass = WorkloadClass::Inference;
        job.priorityClass = "serving";
        j.runtime = runtime(8 * 3600.0, 1.0, 14 * 86400);
        j.usage = UsageProfile::Inference;
        break;
      case Kind::Notebook: {
        const int shares[] = {250, 250, 500};
        job.perTask = {GpuRequest::Kind::Fraction, 0, {}, shares[pick(3)], 8192};
        job.cpusPerTask = 2;
        job.memoryMiBPerTask = 8192;
        job.workloadClass = WorkloadClass::Interactive;
        job.priorityClass = "experiment";
        j.runtime = runtime(2 * 3600.0, 0.8, 2 * 86400);
        j.usage = UsageProfile::IdleNotebook;
        break;
      }
      case Kind::Batch: {
        const int g = std::min(std::max(1, offer_.maxGpusPerNode), 1 + static_cast<int>(pick(2)));
        job.perTask = {GpuRequest::Kind::Whole, g, {}, 0, 0};
        job.cpusPerTask = 4 * g;
        job.memoryMiBPerTask = int64_t{16384} * g;
        job.workloadClass = WorkloadClass::Batch;
        job.priorityClass = "spot";
        j.runtime = runtime(1800.0, 1.0, 86400);
        j.usage = UsageProfile::ComputeBound;
        break;
      }
    }
    const auto cls =
        std::find_if(defaultClasses_.begin(), defaultClasses_.end(),
                     [&](const PriorityClass& c) { return c.name == job.priorityClass; });
    job.priority = cls->value;
    job.preemptible = cls->preemptibleByDefault;
    job.estimatedRuntime = estimateOf(j.runtime);
    return j;
  }

  const SyntheticConfig& cfg_;
  Offer offer_;
  std::mt19937_64 rng_;
  std::vector<PriorityClass> defaultClasses_ = defaultPriorityClasses();
};

}  // namespace

Expected<Trace> synthesize(const Cluster& cluster, const SyntheticConfig& config) {
  if (!(config.arrivalsPerHour > 0) || !std::isfinite(config.arrivalsPerHour) ||
      config.arrivalsPerHour > 1e6)
    return Error{"the arrival rate must be more than 0 and at most 1,000,000 jobs per hour", {}};
  if (!(config.runtimeScale > 0) || !std::isfinite(config.runtimeScale))
    return Error{"the runtime scale must be positive", {}};
  if (config.teams.empty()) return Error{"a synthetic workload needs at least one team", {}};
  const Offer offer = offerOf(cluster);
  if (offer.maxGpusPerNode == 0 && offer.migProfiles.empty() && !offer.timeSliced)
    return Error{"cluster '" + cluster.name + "' has no GPU a synthetic job could use", {}};
  return Generator(cluster, config).run();
}

}  // namespace tessera
