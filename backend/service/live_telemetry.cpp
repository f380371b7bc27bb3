#include "service/live_telemetry.h"

#include <algorithm>
#include <map>

#include "scheduler/command_yaml.h"
#include "topology/cluster.h"

namespace tessera {
namespace {

// Weighted means of the readings of one GPU's rows (one row for a whole GPU). A MIG GPU's
// instances weigh their compute slices out of the GPU's total, so slices no instance covers
// count as idle rather than vanishing from the mean.
struct Accumulator {
  struct Mean {
    double sum = 0, weight = 0;
    void add(const std::optional<double>& v, double w) {
      if (!v) return;
      sum += *v * w;
      weight += w;
    }
    [[nodiscard]] std::optional<double> value(double total) const {
      return weight > 0 ? std::optional(sum / std::max(weight, total)) : std::nullopt;
    }
  };
  Mean util, sm, tensor;
  double fbUsed = 0, fbTotal = 0;
  bool fbKnown = false;
  std::optional<double> memoryUsed, temperatureC;
  int xid = 0;
  std::string xidMessage;
  std::optional<Seconds> sampled;  // the oldest row's timestamp, when the rows have them

  void add(const DcgmGpuReading& r, double weight) {
    if (r.sampledMs) {
      const auto at = static_cast<Seconds>(*r.sampledMs / 1000);
      sampled = std::min(sampled.value_or(at), at);
    }
    // GPU_UTIL is not reported per MIG instance; the graphics engine's activity stands in.
    util.add(r.util ? r.util : r.grEngineActive, weight);
    sm.add(r.smActive, weight);
    tensor.add(r.tensorActive, weight);
    if (r.fbUsedMiB && r.fbFreeMiB) {
      fbUsed += *r.fbUsedMiB;
      fbTotal += *r.fbUsedMiB + *r.fbFreeMiB;
      fbKnown = true;
    } else if (r.memoryUsed && !r.isMigInstance()) {
      memoryUsed = r.memoryUsed;
    }
    if (r.temperatureC) temperatureC = r.temperatureC;
    if (r.xid && xidTakesTheGpuOut(*r.xid)) {
      xid = *r.xid;
      xidMessage = r.xidMessage;
    }
  }
};

// A row's weight in its GPU's figures: 1 for a whole GPU; a MIG instance's compute slices, from
// the GPU model's profile (1 when the model does not know the profile).
double weightOf(const GpuModel& model, const DcgmGpuReading& r) {
  if (!r.isMigInstance() || !model.mig) return 1;
  const int p = model.mig->profileIndex(r.migProfile);
  return p >= 0 ? std::max(1, model.mig->profiles[static_cast<size_t>(p)].computeSlices) : 1;
}

// Why a scrape gave no reading: it has no GPU rows (not a dcgm-exporter's scrape, or one of a
// host without GPUs), or every row was left out (the first one's warning says why).
Error nothingTaken(const DcgmScrape& scrape, const std::string& firstLeftOut) {
  if (scrape.gpus.empty())
    return Error{"the scrape has no GPU readings (no DCGM_FI_DEV_* series with a gpu label)" +
                     (scrape.warnings.empty() ? std::string() : "; " + scrape.warnings.front()),
                 {}};
  const size_t rows = scrape.gpus.size();
  return Error{"nothing taken: none of the scrape's " + std::to_string(rows) +
                   (rows == 1 ? " GPU row was" : " GPU rows was") +
                   " taken; the first left out: " + firstLeftOut,
               {}};
}

}  // namespace

bool xidTakesTheGpuOut(int xid) {
  return std::any_of(kResetXids.begin(), kResetXids.end(), [xid](int x) { return x == xid; });
}

Expected<TelemetryPush> LiveTelemetry::ingest(const Cluster& cluster, const DcgmScrape& scrape,
                                              const std::string& node, Seconds now) {
  TelemetryPush out;
  out.warnings = scrape.warnings;
  gpus_.resize(cluster.gpus().size());
  std::map<GpuId, Accumulator> byGpu;
  // With --node the scrape is one host's: rows of another host would land on its GPUs.
  const std::string* agentHost =
      node.empty() || scrape.gpus.empty() ? nullptr : &scrape.gpus.front().hostname;
  std::string firstLeftOut;
  auto leaveOut = [&](std::string why) {
    if (firstLeftOut.empty()) firstLeftOut = why;
    out.warnings.push_back(std::move(why));
  };
  for (const DcgmGpuReading& r : scrape.gpus) {
    if (agentHost && r.hostname != *agentHost) {
      leaveOut("gpu " + std::to_string(r.gpu) + " of '" + r.hostname +
               "': left out, the scrape is '" + *agentHost + "''s (--node " + node +
               ") and this row another host's");
      continue;
    }
    const std::string& name = node.empty() ? r.hostname : node;
    const std::string where = "gpu " + std::to_string(r.gpu) + " of '" + name + "'";
    const Node* n = cluster.findNode(name);
    if (!n) {
      leaveOut(where + ": no such node in the cluster" +
               (node.empty() ? " (give the node's name with --node)" : ""));
      continue;
    }
    if (r.gpu < 0 || r.gpu >= n->gpuCount()) {
      leaveOut(where + ": the node has " + std::to_string(n->gpuCount()) + " GPUs");
      continue;
    }
    // A timestamped row (a saved scrape pushed late) counts from when it was sampled.
    if (const Seconds age = r.sampledMs ? now - *r.sampledMs / 1000 : 0; age > kStaleAfter) {
      leaveOut(where + ": sampled " + formatDuration(age) + " ago, older than a reading counts (" +
               formatDuration(kStaleAfter) + ")");
      continue;
    }
    const GpuId g = n->firstGpu + static_cast<GpuId>(r.gpu);
    byGpu[g].add(r, weightOf(cluster.modelOf(g), r));
  }
  // Readings are worked out first and stored only when some are taken: a refused push changes
  // nothing.
  std::vector<std::pair<GpuId, LiveGpuReading>> taken;
  for (const auto& [g, a] : byGpu) {
    const GpuModel& model = cluster.modelOf(g);
    const double total =
        model.mig && cluster.gpu(g).sharing.mode == SharingMode::Mig ? model.mig->computeSlices : 1;
    LiveGpuReading reading;
    reading.at = std::min(now, a.sampled.value_or(now));  // a clock ahead of ours: now
    const auto& previous = gpus_[g];
    // A late push of an older scrape must not replace a newer reading.
    if (previous && previous->at > reading.at) {
      leaveOut("gpu " + cluster.gpuName(g) +
               ": sampled before the reading it already has; that one is kept");
      continue;
    }
    reading.util = a.util.value(total);
    reading.smActive = a.sm.value(total);
    reading.tensorActive = a.tensor.value(total);
    reading.memoryUsed =
        a.fbKnown && a.fbTotal > 0 ? std::optional(a.fbUsed / a.fbTotal) : a.memoryUsed;
    reading.temperatureC = a.temperatureC;
    reading.xid = a.xid;
    reading.xidMessage = a.xidMessage;
    reading.xidSince = previous && previous->xid == a.xid ? previous->xidSince : reading.at;
    taken.emplace_back(g, std::move(reading));
  }
  if (taken.empty()) return nothingTaken(scrape, firstLeftOut);
  for (auto& [g, reading] : taken) gpus_[g] = std::move(reading);
  out.gpus = static_cast<int>(taken.size());
  // A scrape of the wrong cluster warns per row: keep the answer within the message limits.
  if (out.warnings.size() > kMaxWarnings) {
    const size_t more = out.warnings.size() - kMaxWarnings;
    out.warnings.resize(kMaxWarnings);
    out.warnings.push_back("... and " + std::to_string(more) + " more warnings");
  }
  return out;
}

const LiveGpuReading* LiveTelemetry::reading(GpuId g, Seconds now) const {
  if (g >= gpus_.size() || !gpus_[g] || now - gpus_[g]->at > kStaleAfter) return nullptr;
  return &*gpus_[g];
}

std::optional<JobTelemetry> LiveTelemetry::jobTelemetry(const JobRecord& job, Seconds now) const {
  if (!job.placement) return std::nullopt;
  // Each figure is the mean over the job's GPUs that report it: one that does not is unknown,
  // not zero. Without a utilization reading the job is unmeasured.
  double util = 0, sm = 0, tensor = 0, memory = 0;
  int nUtil = 0, nSm = 0, nTensor = 0, nMemory = 0;
  auto add = [](const std::optional<double>& v, double& sum, int& n) {
    if (!v) return;
    sum += *v;
    ++n;
  };
  for (const auto& task : job.placement->tasks)
    for (GpuId g : task.gpus)
      if (const LiveGpuReading* r = reading(g, now)) {
        add(r->util, util, nUtil);
        add(r->smActive, sm, nSm);
        add(r->tensorActive, tensor, nTensor);
        add(r->memoryUsed, memory, nMemory);
      }
  if (nUtil == 0) return std::nullopt;
  JobTelemetry t;
  t.util = util / nUtil;
  t.sm = nSm ? sm / nSm : 0;
  t.tensor = nTensor ? tensor / nTensor : 0;
  t.memory = nMemory ? memory / nMemory : 0;
  return t;
}

}  // namespace tessera
