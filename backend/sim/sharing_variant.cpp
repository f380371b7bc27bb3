#include "sim/sharing_variant.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "mig/mig_plan.h"

namespace tessera {
namespace {

int64_t memoryOf(const GpuModel& m) {
  return m.memoryMiB.value_or(0);
}

int64_t profileMemoryMiB(const GpuModel& m, const MigProfile& p) {
  if (memoryOf(m) > 0) return memoryOf(m) * p.memorySlices / m.mig->memorySlices;
  return static_cast<int64_t>(p.memoryGiB * 1024.0);
}

// The smallest profile (memory slices, then compute slices) whose memory holds `memoryMiB`.
int smallestProfileFor(const GpuModel& m, int64_t memoryMiB) {
  int best = -1;
  const auto& profiles = m.mig->profiles;
  for (size_t i = 0; i < profiles.size(); ++i) {
    const MigProfile& p = profiles[i];
    if (p.mediaExtensions || profileMemoryMiB(m, p) < memoryMiB) continue;
    const MigProfile* b = best < 0 ? nullptr : &profiles[static_cast<size_t>(best)];
    if (!b ||
        std::pair(p.memorySlices, p.computeSlices) < std::pair(b->memorySlices, b->computeSlices))
      best = static_cast<int>(i);
  }
  return best;
}

// Slots of 1/slots GPU covering `compute` (at least one; a little slack for 0.25 * 4).
int slotsFor(double compute, int slots) {
  return std::clamp(static_cast<int>(std::ceil(compute * slots - 1e-9)), 1, slots);
}

// A small job's request in `mode`, and the GPU equivalents one task is granted by it.
std::pair<GpuRequest, double> requestIn(StudyMode mode, const SmallNeed& need, int slots,
                                        const GpuModel& reference, const GpuModel* migModel) {
  GpuRequest r;
  const double memShare =
      memoryOf(reference) > 0 ? double(need.memoryMiB) / double(memoryOf(reference)) : 0;
  switch (mode) {
    case StudyMode::TimeSlicing: {
      const int k = slotsFor(std::max(need.compute, memShare), slots);
      r.kind = GpuRequest::Kind::Fraction;
      r.milli = std::min(1000, (k * 1000 + slots - 1) / slots);
      r.vramMiB = need.memoryMiB;
      return {r, r.milli / 1000.0};
    }
    case StudyMode::Mps:
      r.kind = GpuRequest::Kind::Mps;
      r.mpsThreads = std::clamp(static_cast<int>(std::ceil(need.compute * 100 - 1e-9)), 1, 100);
      r.vramMiB = std::max<int64_t>(1, need.memoryMiB);
      return {r, std::max(r.mpsThreads / 100.0, memShare)};
    case StudyMode::Mig:
      if (migModel) {
        const int p = smallestProfileFor(*migModel, need.memoryMiB);
        if (p >= 0) {
          const MigProfile& prof = migModel->mig->profiles[static_cast<size_t>(p)];
          r.kind = GpuRequest::Kind::Mig;
          r.migProfile = prof.name;
          return {r, double(prof.memorySlices) / migModel->mig->memorySlices};
        }
      }
      break;
    case StudyMode::Whole:
      break;
  }
  r.kind = GpuRequest::Kind::Whole;
  r.gpus = 1;
  return {r, 1.0};
}

double taskSeconds(const TraceJob& j) {
  return double(j.job.tasks) * double(std::max<Seconds>(j.runtime, 1));
}

}  // namespace

std::optional<SmallNeed> smallNeedOf(const GpuRequest& r, const GpuModel& reference) {
  switch (r.kind) {
    case GpuRequest::Kind::Fraction: {
      const double compute = r.milli / 1000.0;
      const int64_t mem =
          r.vramMiB > 0 ? r.vramMiB : static_cast<int64_t>(compute * double(memoryOf(reference)));
      return SmallNeed{compute, mem};
    }
    case GpuRequest::Kind::Mps:
      return SmallNeed{r.mpsThreads / 100.0, r.vramMiB};
    case GpuRequest::Kind::Mig: {
      // The profile as the reference model (or failing that the first model having it) cuts it.
      const GpuModel* m = &reference;
      if (!m->mig || m->mig->profileIndex(r.migProfile) < 0) return SmallNeed{1.0 / 7, 0};
      const MigProfile& p =
          m->mig->profiles[static_cast<size_t>(m->mig->profileIndex(r.migProfile))];
      return SmallNeed{double(p.computeSlices) / m->mig->computeSlices, profileMemoryMiB(*m, p)};
    }
    case GpuRequest::Kind::Whole:
    case GpuRequest::Kind::None:
      break;
  }
  return std::nullopt;
}

const GpuModel* mostCommonModel(const Cluster& c, bool migCapable) {
  std::map<const GpuModel*, int> count;
  const GpuModel* best = nullptr;
  for (const Node& n : c.nodes()) {
    if (migCapable && !n.gpuModel().migCapable()) continue;
    const int k = count[n.hw->gpuModel.get()] += n.gpuCount();
    if (!best || k > count[best]) best = n.hw->gpuModel.get();
  }
  return best;
}

std::string cannotRun(const Cluster& c, StudyMode mode) {
  auto any = [&](auto&& pred) {
    return std::any_of(c.nodes().begin(), c.nodes().end(),
                       [&](const Node& n) { return n.gpuCount() > 0 && pred(n.gpuModel()); });
  };
  if (mode == StudyMode::Mig && !any([](const GpuModel& m) { return m.migCapable(); }))
    return "cluster '" + c.name + "' has no MIG-capable GPU";
  if (mode == StudyMode::Mps && !any([](const GpuModel& m) { return m.mpsMaxClients > 0; }))
    return "cluster '" + c.name + "' has no GPU model known to run MPS";
  return "";
}

Expected<ModeWorkload> translateWorkload(const Cluster& cluster, const Trace& trace, StudyMode mode,
                                         int slots) {
  const GpuModel* reference = mostCommonModel(cluster, false);
  if (!reference) return Error{"cluster '" + cluster.name + "' has no GPUs", {}};
  // Small requests are read against the MIG model when there is one: profiles are its names.
  const GpuModel* migModel = mostCommonModel(cluster, true);
  const GpuModel& needModel = migModel ? *migModel : *reference;
  ModeWorkload w;
  w.trace = trace;
  w.migModel = mode == StudyMode::Mig ? migModel : nullptr;
  if (w.migModel) w.profileDemand.assign(w.migModel->mig->profiles.size(), 0.0);
  double small = 0, whole = 0;
  for (TraceJob& j : w.trace.jobs) {
    const auto need = smallNeedOf(j.job.perTask, needModel);
    if (!need) {
      whole += taskSeconds(j) * std::max(0, j.job.perTask.gpus);
      w.widestWholeTask = std::max(w.widestWholeTask, j.job.perTask.gpus);
      continue;
    }
    ++w.smallJobs;
    auto [request, granted] = requestIn(mode, *need, slots, needModel, w.migModel);
    const double needed = std::max(
        need->compute,
        memoryOf(needModel) > 0 ? double(need->memoryMiB) / double(memoryOf(needModel)) : 0.0);
    w.grantedAndNeeded[j.job.id] = {granted, std::min(needed, granted)};
    j.job.perTask = request;
    if (request.kind == GpuRequest::Kind::Whole) w.widestWholeTask = std::max(w.widestWholeTask, 1);
    (request.kind == GpuRequest::Kind::Whole ? whole : small) += taskSeconds(j) * granted;
    if (request.kind == GpuRequest::Kind::Mig) {
      const int p = w.migModel->mig->profileIndex(request.migProfile);
      w.profileDemand[static_cast<size_t>(p)] += taskSeconds(j) * granted;
    }
  }
  if (mode != StudyMode::Whole && small + whole > 0) w.sharedFraction = small / (small + whole);
  return w;
}

Policy policyForMode(const Policy& base, StudyMode mode) {
  Policy p = base;
  if (mode == StudyMode::Mig) p.mig.createInstances = false;
  return p;
}

}  // namespace tessera
