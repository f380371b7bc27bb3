#include "service/live_telemetry.h"

#include <map>

#include "topology/cluster.h"

namespace tessera {
namespace {

// A MIG instance's weight: its compute slices, the "3" of "3g.40gb" (1 when unreadable).
double computeSlices(const std::string& profile) {
  int n = 0;
  size_t i = 0;
  while (i < profile.size() && profile[i] >= '0' && profile[i] <= '9')
    n = n * 10 + (profile[i++] - '0');
  return i < profile.size() && profile[i] == 'g' && n > 0 ? n : 1;
}

// Weighted means of the readings of one GPU's rows (one row for a whole GPU).
struct Accumulator {
  struct Mean {
    double sum = 0, weight = 0;
    void add(const std::optional<double>& v, double w) {
      if (!v) return;
      sum += *v * w;
      weight += w;
    }
    [[nodiscard]] std::optional<double> value() const {
      return weight > 0 ? std::optional(sum / weight) : std::nullopt;
    }
  };
  Mean util, sm, tensor;
  double fbUsed = 0, fbTotal = 0;
  bool fbKnown = false;
  std::optional<double> memoryUsed, temperatureC;
  int xid = 0;
  std::string xidMessage;

  void add(const DcgmGpuReading& r) {
    const double w = r.isMigInstance() ? computeSlices(r.migProfile) : 1;
    // GPU_UTIL is not reported per MIG instance; the graphics engine's activity stands in.
    util.add(r.util ? r.util : r.grEngineActive, w);
    sm.add(r.smActive, w);
    tensor.add(r.tensorActive, w);
    if (r.fbUsedMiB && r.fbFreeMiB) {
      fbUsed += *r.fbUsedMiB;
      fbTotal += *r.fbUsedMiB + *r.fbFreeMiB;
      fbKnown = true;
    } else if (r.memoryUsed && !r.isMigInstance()) {
      memoryUsed = r.memoryUsed;
    }
    if (r.temperatureC) temperatureC = r.temperatureC;
    if (r.xid && *r.xid > 0) {
      xid = *r.xid;
      xidMessage = r.xidMessage;
    }
  }
};

}  // namespace

TelemetryPush LiveTelemetry::ingest(const Cluster& cluster, const DcgmScrape& scrape,
                                    const std::string& node, Seconds now) {
  TelemetryPush out;
  out.warnings = scrape.warnings;
  gpus_.resize(cluster.gpus().size());
  std::map<GpuId, Accumulator> byGpu;
  for (const DcgmGpuReading& r : scrape.gpus) {
    const std::string& name = node.empty() ? r.hostname : node;
    const std::string where = "gpu " + std::to_string(r.gpu) + " of '" + name + "'";
    const Node* n = cluster.findNode(name);
    if (!n) {
      out.warnings.push_back(where + ": no such node in the cluster" +
                             (node.empty() ? " (give the node's name with --node)" : ""));
      continue;
    }
    if (r.gpu < 0 || r.gpu >= n->gpuCount()) {
      out.warnings.push_back(where + ": the node has " + std::to_string(n->gpuCount()) + " GPUs");
      continue;
    }
    byGpu[n->firstGpu + static_cast<GpuId>(r.gpu)].add(r);
  }
  for (const auto& [g, a] : byGpu) {
    LiveGpuReading reading;
    reading.at = now;
    reading.util = a.util.value();
    reading.smActive = a.sm.value();
    reading.tensorActive = a.tensor.value();
    reading.memoryUsed =
        a.fbKnown && a.fbTotal > 0 ? std::optional(a.fbUsed / a.fbTotal) : a.memoryUsed;
    reading.temperatureC = a.temperatureC;
    reading.xid = a.xid;
    reading.xidMessage = a.xidMessage;
    reading.xidSince = now;
    const auto& previous = gpus_[g];
    if (previous && previous->xid == a.xid) reading.xidSince = previous->xidSince;
    gpus_[g] = std::move(reading);
    ++out.gpus;
  }
  return out;
}

const LiveGpuReading* LiveTelemetry::reading(GpuId g, Seconds now) const {
  if (g >= gpus_.size() || !gpus_[g] || now - gpus_[g]->at > kStaleAfter) return nullptr;
  return &*gpus_[g];
}

std::optional<JobTelemetry> LiveTelemetry::jobTelemetry(const JobRecord& job, Seconds now) const {
  if (!job.placement) return std::nullopt;
  JobTelemetry sum;
  int n = 0;
  for (const auto& task : job.placement->tasks)
    for (GpuId g : task.gpus) {
      const LiveGpuReading* r = reading(g, now);
      if (!r || !r->util) continue;
      sum.util += *r->util;
      sum.sm += r->smActive.value_or(0);
      sum.tensor += r->tensorActive.value_or(0);
      sum.memory += r->memoryUsed.value_or(0);
      ++n;
    }
  if (n == 0) return std::nullopt;
  for (double* v : {&sum.util, &sum.sm, &sum.tensor, &sum.memory}) *v /= n;
  return sum;
}

}  // namespace tessera
