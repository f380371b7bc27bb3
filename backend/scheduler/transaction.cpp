#include "scheduler/transaction.h"

#include <algorithm>
#include <string>

#include "mig/mig_validate.h"

namespace tessera {

Status Transaction::takeWholeGpu(GpuId id, JobId job) {
  TESSERA_CHECK(state_.takeWholeGpu(id, job));
  undo_.push_back({Kind::TookWhole, id, job, -1, {}});
  return okStatus();
}

Expected<int> Transaction::takeMigInstance(GpuId id, int profile, JobId job, bool mayCreate) {
  const int before = state_.gpu(id).layout.size();
  TESSERA_TRY(index, state_.takeMigInstance(id, profile, job, mayCreate));
  const bool created = state_.gpu(id).layout.size() > before;
  undo_.push_back({created ? Kind::CreatedMig : Kind::TookMig, id, job, index, {}});
  return index;
}

Status Transaction::takeShare(GpuId id, JobId job, int milli, int64_t vramMiB) {
  TESSERA_CHECK(state_.takeShare(id, job, milli, vramMiB));
  undo_.push_back({Kind::TookShare, id, job, -1, {}});
  return okStatus();
}

void Transaction::releaseJob(JobId job) {
  const Cluster& c = state_.cluster();
  for (const auto& g : c.gpus()) {
    const GpuOccupancy& o = state_.gpu(g.id);
    if (o.wholeOwner == job) {
      state_.releaseWholeGpu(g.id);
      undo_.push_back({Kind::ReleasedWhole, g.id, job, -1, {}});
    }
    for (int i = 0; i < o.layout.size(); ++i)
      if (o.instanceOwner[static_cast<size_t>(i)] == job) {
        state_.releaseMigInstance(g.id, i, false);
        undo_.push_back({Kind::ReleasedMig, g.id, job, i, {}});
      }
    auto share = std::find_if(o.shares.begin(), o.shares.end(),
                              [&](const GpuShare& s) { return s.job == job; });
    if (share != o.shares.end()) {
      const GpuShare copy = *share;
      const auto position = static_cast<int>(share - o.shares.begin());
      state_.releaseShare(g.id, job);
      undo_.push_back({Kind::ReleasedShare, g.id, job, position, copy});
    }
  }
}

void Transaction::rollbackTo(size_t mark) {
  if (mark > undo_.size()) return;
  for (auto it = undo_.rbegin(); it != undo_.rend() - static_cast<std::ptrdiff_t>(mark); ++it) {
    switch (it->kind) {
      case Kind::TookWhole:
        state_.releaseWholeGpu(it->gpu);
        break;
      case Kind::TookMig:
        state_.releaseMigInstance(it->gpu, it->index, false);
        break;
      case Kind::CreatedMig:
        state_.releaseMigInstance(it->gpu, it->index, true);
        break;
      case Kind::TookShare:
        state_.releaseShare(it->gpu, it->job);
        break;
      // Re-taking what was released cannot fail: the state is back where it was at release time.
      case Kind::ReleasedWhole:
        (void)state_.takeWholeGpu(it->gpu, it->job);
        break;
      case Kind::ReleasedMig:
        state_.unsafeGpu(it->gpu).instanceOwner[static_cast<size_t>(it->index)] = it->job;
        break;
      case Kind::ReleasedShare: {
        GpuOccupancy& o = state_.unsafeGpu(it->gpu);
        // Back at its old position: share order is part of the state (it is the arrival order).
        o.shares.insert(o.shares.begin() + it->index, it->share);
        o.milliUsed += it->share.milli;
        o.vramUsedMiB += it->share.vramMiB;
        break;
      }
    }
  }
  undo_.resize(mark);
}

namespace {

std::string gpuName(const Cluster& c, GpuId id) {
  const Gpu& g = c.gpu(id);
  return c.node(g.node).name + "/" + std::to_string(g.index);
}

void checkGpu(const ClusterState& state, const Gpu& g, std::vector<std::string>& out) {
  const Cluster& c = state.cluster();
  const GpuOccupancy& o = state.gpu(g.id);
  const std::string name = gpuName(c, g.id);
  const GpuModel& model = c.modelOf(g.id);
  if (o.wholeOwner != kNoJob && g.sharing.mode != SharingMode::Exclusive)
    out.push_back(name + ": whole-GPU owner on a " + sharingModeName(g.sharing.mode) + " GPU");
  if (g.sharing.mode == SharingMode::Mig && model.mig) {
    if (auto v = validateMigLayout(*model.mig, o.layout); !v.ok())
      out.push_back(name + ": " + explainMigVerdict(model, o.layout, v));
  } else if (!o.layout.empty()) {
    out.push_back(name + ": MIG instances on a GPU not in MIG mode");
  }
  for (int i = o.layout.size(); i < kMaxMemorySlices; ++i)
    if (o.instanceOwner[static_cast<size_t>(i)] != kNoJob)
      out.push_back(name + ": owner recorded for missing MIG instance " + std::to_string(i));
  int milli = 0;
  int64_t vram = 0;
  for (const auto& s : o.shares) {
    milli += s.milli;
    vram += s.vramMiB;
  }
  if (milli != o.milliUsed || vram != o.vramUsedMiB)
    out.push_back(name + ": share sums disagree with totals");
  if (milli > 1000) out.push_back(name + ": shares exceed the GPU");
  if (!o.shares.empty() && g.sharing.mode != SharingMode::TimeSliced)
    out.push_back(name + ": shares on a GPU that is not time-sliced");
  if (static_cast<int>(o.shares.size()) > std::max(1, g.sharing.replicas))
    out.push_back(name + ": more shares than replicas");
  if (model.memoryMiB && vram > *model.memoryMiB)
    out.push_back(name + ": shares exceed GPU memory");
}

}  // namespace

std::vector<std::string> checkInvariants(const ClusterState& state) {
  std::vector<std::string> out;
  for (const auto& g : state.cluster().gpus()) checkGpu(state, g, out);
  if (!(state.counters() == state.recountFree()))
    out.push_back("free whole-GPU counters disagree with a recount");
  return out;
}

}  // namespace tessera
