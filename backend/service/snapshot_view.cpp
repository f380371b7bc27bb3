#include "service/snapshot_view.h"

#include "service/reservation_views.h"
#include "topology/mig_layout.h"

namespace tessera {
namespace {

std::string gpuSharingName(SharingMode m) {
  switch (m) {
    case SharingMode::Exclusive:
      return "exclusive";
    case SharingMode::Mig:
      return "mig";
    case SharingMode::Mps:
      return "mps";
    default:
      return "shared";
  }
}

std::optional<GpuView::Mps> mpsView(const Cluster& c, GpuId g) {
  const MpsPolicy& p = c.gpu(g).sharing.mps;
  if (!p.enabled) return std::nullopt;
  return GpuView::Mps{c.modelOf(g).mpsMaxClients, p.threadBudget, p.coLocation, p.nodeSharing};
}

}  // namespace

ClusterSnapshot snapshotOf(const Engine& e, const World& world, uint64_t lastEventSeq) {
  const Cluster& c = e.cluster();
  ClusterSnapshot s;
  s.now = e.now();
  s.mode = backendModeName(world.mode());
  for (const Node& n : c.nodes()) {
    NodeView nv;
    nv.name = n.name;
    nv.state = nodeStateName(e.state().nodeState(n.id));
    nv.stateReason = e.nodeReason(n.id);
    nv.pool = n.pool;
    for (const NodeHold& h : e.nodeHolds(n.id).all())
      nv.holds.push_back({holdOwnerName(h.owner), h.gpu ? c.gpuName(*h.gpu) : std::string(),
                          h.reason, h.down, h.since});
    if (n.leaf != kNone) {
      const FabricSwitch& leaf = c.switches()[static_cast<size_t>(n.leaf)];
      nv.leaf = leaf.name;
      if (leaf.parent != kNone) nv.spine = c.switches()[static_cast<size_t>(leaf.parent)].name;
    }
    for (int i = 0; i < n.gpuCount(); ++i) {
      const GpuId g = n.firstGpu + static_cast<GpuId>(i);
      const GpuOccupancy& o = e.state().gpu(g);
      GpuView gv;
      gv.index = i;
      gv.model = c.modelOf(g).id;
      gv.sharing = gpuSharingName(c.gpu(g).sharing.mode);
      if (const DomainId d = c.gpu(g).nvlinkDomain; d != kNone)
        gv.nvlinkDomain = c.nvlinkDomains()[static_cast<size_t>(d)].name;
      if (n.hw && static_cast<size_t>(i) < n.hw->gpuNuma.size())
        gv.numa = n.hw->gpuNuma[static_cast<size_t>(i)];
      auto teamOf = [&e](JobId id) {
        const JobRecord* r = e.job(id);
        return r ? r->job.team : std::string();
      };
      if (o.wholeOwner != kNoJob)
        gv.occupants.push_back({o.wholeOwner, 1000, "", teamOf(o.wholeOwner), -1});
      for (const auto& sh : o.shares)
        gv.occupants.push_back({sh.job, sh.milli, "", teamOf(sh.job), -1});
      // An MPS client counts its active-thread percentage as its share of the GPU.
      gv.mps = mpsView(c, g);
      for (const auto& mc : o.mpsClients)
        gv.occupants.push_back(
            {mc.job, mc.threads * 10, "", mc.team, mc.instanceStart, mc.threads, mc.memoryMiB});
      if (const auto& mig = c.modelOf(g).mig) {
        MigLayout l = o.layout;
        for (int k = 0; k < l.size(); ++k) {
          const JobId owner = o.instanceOwner[static_cast<size_t>(k)];
          l[k].busy = owner != kNoJob;
          if (owner == kNoJob) continue;
          const auto& p = mig->profiles[static_cast<size_t>(l[k].profile)];
          gv.occupants.push_back({owner,
                                  static_cast<int>(1000 * p.memorySlices / mig->memorySlices),
                                  p.name, teamOf(owner), l[k].start});
        }
        if (c.gpu(g).sharing.mode == SharingMode::Mig)
          gv.migLayout = formatMigLayout(c.modelOf(g), l, true);
      }
      for (const auto& occ : gv.occupants) gv.allocated += occ.milli / 1000.0;
      world.describeGpu(g, e.now(), gv);
      s.gpusTotal += 1;
      s.gpusAllocated += gv.allocated;
      nv.gpus.push_back(std::move(gv));
    }
    s.nodes.push_back(std::move(nv));
  }
  const auto use = e.teamUse();
  const auto& teams = e.quotas().teams();
  for (size_t t = 0; t < teams.size(); ++t) {
    TeamView tv;
    tv.name = teams[t].name;
    tv.parent = teams[t].parent;
    tv.gpusInUse = t < use.size() ? use[t].gpus : 0;
    for (const auto& [key, q] : teams[t].quotas) tv.guaranteed += q.guaranteed;
    tv.fairShareUsage = e.fairShare().usage(static_cast<int>(t));
    s.teams.push_back(std::move(tv));
  }
  s.pendingJobs = static_cast<int>(e.pending().size());
  s.runningJobs = static_cast<int>(e.running().size());
  s.lastEventSeq = lastEventSeq;
  s.cycles = e.stats().cycles;
  s.lastCycleMs = e.stats().lastCycleMs;
  s.reservations = reservationViews(e);
  const ExecutorStatus ex = world.executor();
  s.executor = {ex.name, executorStateName(ex.state), ex.detail, ex.lastSync};
  return s;
}

}  // namespace tessera
