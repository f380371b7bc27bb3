// MPS clients in the cluster state: which server of a GPU (its own, or one per MIG instance)
// takes a client, under the server's thread budget, pinned memory, client limit and co-location
// policy. The checks run in MpsRefusal's order, so a refusal says how far a client got.
#include <algorithm>
#include <limits>
#include <vector>

#include "core/engine_text.h"
#include "scheduler/cluster_state.h"

namespace tessera {

namespace {

// One MPS server: the GPU's own (start -1) or an idle MIG instance's.
struct MpsServer {
  int start = -1;
  int64_t memoryMiB = 0;
  std::string name;  // "pod-a-02/3", or "pod-a-02/3 3g.40gb@4" for an instance
};

std::vector<MpsServer> serversOf(const Cluster& c, const GpuOccupancy& o, GpuId id) {
  const Gpu& g = c.gpu(id);
  const GpuModel& model = c.modelOf(id);
  if (g.sharing.mode == SharingMode::Mps) {
    const int64_t memory = model.memoryMiB ? *model.memoryMiB : std::numeric_limits<int64_t>::max();
    return {{-1, memory, c.gpuName(id)}};
  }
  std::vector<MpsServer> out;
  if (!model.mig) return out;
  for (int k = 0; k < o.layout.size(); ++k) {
    // An instance a MIG-profile job holds (from before MPS was turned on) runs no server.
    if (o.instanceOwner[static_cast<size_t>(k)] != kNoJob) continue;
    const MigProfile& p = model.mig->profiles[static_cast<size_t>(o.layout[k].profile)];
    // The catalog's figure is what one driver printed; whole MiB below it are safe to pin.
    const auto memory = static_cast<int64_t>(p.memoryGiB * 1024.0);
    out.push_back({o.layout[k].start, memory,
                   c.gpuName(id) + " " + p.name + "@" + std::to_string(o.layout[k].start)});
  }
  return out;
}

struct ServerUse {
  int clients = 0;
  int threads = 0;
  int64_t memoryMiB = 0;
  const MpsClient* stranger = nullptr;  // the first client the policy keeps apart from the ask
};

bool mayShare(MpsCoLocation policy, const MpsClient& c, const MpsAsk& ask) {
  switch (policy) {
    case MpsCoLocation::Team:
      return c.team == ask.team;
    case MpsCoLocation::User:
      return !ask.user.empty() && c.user == ask.user;
    case MpsCoLocation::Any:
      return true;
  }
  return false;
}

ServerUse useOf(const GpuOccupancy& o, int start, MpsCoLocation policy, const MpsAsk& ask) {
  ServerUse u;
  for (const auto& c : o.mpsClients) {
    if (c.instanceStart != start) continue;
    ++u.clients;
    u.threads += c.threads;
    u.memoryMiB += c.memoryMiB;
    if (!u.stranger && !mayShare(policy, c, ask)) u.stranger = &c;
  }
  return u;
}

MpsFit refuse(MpsRefusal r, Text why) {
  return {r, -1, std::move(why)};
}

Text coLocationText(MpsCoLocation policy, const std::string& gpu, const MpsClient& other,
                    const MpsAsk& ask) {
  if (policy == MpsCoLocation::Team)
    return phrase(text::kMpsOtherTeam, gpu, literal(other.team), literal(ask.team));
  if (ask.user.empty()) return phrase(text::kMpsUnknownUser, gpu);
  return phrase(text::kMpsOtherUser, gpu, literal(other.user), literal(ask.user));
}

MpsFit fitOnServer(const MpsServer& s, const ServerUse& u, const MpsPolicy& policy, int maxClients,
                   const MpsAsk& ask) {
  if (u.stranger)
    return refuse(MpsRefusal::CoLocation,
                  coLocationText(policy.coLocation, s.name, *u.stranger, ask));
  if (u.clients >= maxClients)
    return refuse(MpsRefusal::ClientLimit, phrase(text::kMpsClientLimit, s.name, maxClients));
  if (u.threads + ask.threads > policy.threadBudget)
    return refuse(MpsRefusal::Threads,
                  phrase(text::kMpsThreadsLeft, s.name,
                         std::max(0, policy.threadBudget - u.threads), ask.threads));
  if (u.memoryMiB + ask.memoryMiB > s.memoryMiB)
    return refuse(MpsRefusal::Memory,
                  phrase(text::kMpsMemoryLeft, s.name,
                         std::max<int64_t>(0, s.memoryMiB - u.memoryMiB), ask.memoryMiB));
  return {MpsRefusal::None, s.start, {}};
}

}  // namespace

MpsFit ClusterState::mpsFit(GpuId id, const MpsAsk& ask, int instanceStart) const {
  const Gpu& g = cluster_->gpu(id);
  const std::string name = cluster_->gpuName(id);
  if (!g.sharing.runsMps()) return refuse(MpsRefusal::NotMps, phrase(text::kMpsNotRunning, name));
  if (nodeStates_[g.node] != NodeState::Up)
    return refuse(MpsRefusal::NodeNotUp, phrase(text::kMpsNodeNotUp, name));
  const GpuOccupancy& o = gpus_[id];
  if (std::any_of(o.mpsClients.begin(), o.mpsClients.end(),
                  [&](const MpsClient& c) { return c.job == ask.job; }))
    return refuse(MpsRefusal::AlreadyThere, phrase(text::kMpsAlreadyThere, name));
  MpsFit best = refuse(MpsRefusal::NotMps, phrase(text::kMpsNotRunning, name));
  int bestThreads = -1;
  for (const MpsServer& s : serversOf(*cluster_, o, id)) {
    if (instanceStart != kAnyMpsServer && s.start != instanceStart) continue;
    const ServerUse u = useOf(o, s.start, g.sharing.mps.coLocation, ask);
    MpsFit fit = fitOnServer(s, u, g.sharing.mps, cluster_->modelOf(id).mpsMaxClients, ask);
    // Fitting servers: the fullest (packing). Refusals: the one the client got furthest with.
    if (fit.ok() ? (!best.ok() || u.threads > bestThreads)
                 : (!best.ok() && fit.refusal > best.refusal)) {
      if (fit.ok()) bestThreads = u.threads;
      best = std::move(fit);
    }
  }
  return best;
}

Expected<int> ClusterState::takeMps(GpuId id, const MpsAsk& ask, int instanceStart) {
  if (ask.job == kNoJob) return Error{"job id 0 is reserved", {}};
  const MpsFit fit = mpsFit(id, ask, instanceStart);
  if (!fit.ok()) return Error::of(fit.why);
  gpus_[id].mpsClients.push_back(
      {ask.job, ask.threads, ask.memoryMiB, fit.instanceStart, ask.team, ask.user});
  return fit.instanceStart;
}

void ClusterState::releaseMps(GpuId id, JobId job) {
  auto& clients = gpus_[id].mpsClients;
  std::erase_if(clients, [&](const MpsClient& c) { return c.job == job; });
}

}  // namespace tessera
