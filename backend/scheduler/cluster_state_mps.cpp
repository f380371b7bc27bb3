// MPS clients in the cluster state: which server of a GPU (its own, or one per MIG instance)
// takes a client, under the server's thread budget, pinned memory, client limit and co-location
// policy. The checks run in MpsRefusal's order, so a refusal says how far a client got.
#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "core/engine_text.h"
#include "scheduler/cluster_state.h"
#include "scheduler/mps_check.h"

namespace tessera {

namespace {

// One MPS server: the GPU's own (start -1, no profile) or an idle MIG instance's.
// No member initializers: a search builds these for every GPU it asks about, and filling the
// unused slots (and copying them) cost more than the checks themselves.
struct MpsServer {
  int start;
  int64_t memoryMiB;
  const MigProfile* profile;
};

// At most one server per MIG instance: kept on the stack, as mpsFit runs for every GPU of every
// node a search looks at.
struct MpsServers {
  std::array<MpsServer, kMaxMemorySlices> items;
  int count = 0;
};

void serversOf(const Cluster& c, const GpuOccupancy& o, GpuId id, MpsServers& out) {
  const Gpu& g = c.gpu(id);
  const GpuModel& model = c.modelOf(id);
  out.count = 0;
  if (g.sharing.mode == SharingMode::Mps) {
    const int64_t memory = model.memoryMiB ? *model.memoryMiB : std::numeric_limits<int64_t>::max();
    out.items[0] = {-1, memory, nullptr};
    out.count = 1;
    return;
  }
  if (!model.mig) return;
  for (int k = 0; k < o.layout.size(); ++k) {
    // An instance a MIG-profile job holds (from before MPS was turned on) runs no server.
    if (o.instanceOwner[static_cast<size_t>(k)] != kNoJob) continue;
    const MigProfile& p = model.mig->profiles[static_cast<size_t>(o.layout[k].profile)];
    // The catalog's figure is what one driver printed; whole MiB below it are safe to pin.
    const auto memory = static_cast<int64_t>(p.memoryGiB * 1024.0);
    out.items[static_cast<size_t>(out.count++)] = {o.layout[k].start, memory, &p};
  }
}

// "pod-a-02/3", or "pod-a-02/3 3g.40gb@4" for an instance's server.
std::string serverName(const Cluster& c, GpuId id, const MpsServer& s) {
  if (!s.profile) return c.gpuName(id);
  return c.gpuName(id) + " " + s.profile->name + "@" + std::to_string(s.start);
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

// The first check a server fails, in MpsRefusal's order (None: it takes the client).
MpsRefusal checkServer(const MpsServer& s, const ServerUse& u, const MpsPolicy& policy,
                       int maxClients, const MpsAsk& ask) {
  if (u.stranger) return MpsRefusal::CoLocation;
  if (u.clients >= maxClients) return MpsRefusal::ClientLimit;
  if (u.threads + ask.threads > policy.threadBudget) return MpsRefusal::Threads;
  if (u.memoryMiB + ask.memoryMiB > s.memoryMiB) return MpsRefusal::Memory;
  return MpsRefusal::None;
}

// The sentence of checkServer's refusal `r`: worded only for the refusal mpsFit reports.
Text refusalText(MpsRefusal r, const std::string& name, const MpsServer& s, const ServerUse& u,
                 const MpsPolicy& policy, int maxClients, const MpsAsk& ask) {
  switch (r) {
    case MpsRefusal::CoLocation:
      return coLocationText(policy.coLocation, name, *u.stranger, ask);
    case MpsRefusal::ClientLimit:
      return phrase(text::kMpsClientLimit, name, maxClients);
    case MpsRefusal::Threads:
      return phrase(text::kMpsThreadsLeft, name, std::max(0, policy.threadBudget - u.threads),
                    ask.threads);
    case MpsRefusal::Memory:
      return phrase(text::kMpsMemoryLeft, name, std::max<int64_t>(0, s.memoryMiB - u.memoryMiB),
                    ask.memoryMiB);
    default:
      return {};
  }
}

// Whether the GPU runs MPS itself (not in MIG instances) and has clients: what the node's
// one-GPU rule counts, as Slurm's gres/mps counts a GPU with mps allocated.
bool servesMps(const ClusterState& state, GpuId g) {
  return state.cluster().gpu(g).sharing.mode == SharingMode::Mps &&
         !state.gpu(g).mpsClients.empty();
}

// The GPUs of the node that serve MPS clients, as local indices.
std::vector<int> servingGpus(const ClusterState& state, NodeId node) {
  const Node& n = state.cluster().node(node);
  std::vector<int> out;
  for (int i = 0; i < n.gpuCount(); ++i)
    if (servesMps(state, n.firstGpu + static_cast<GpuId>(i))) out.push_back(i);
  return out;
}

// The node's one-GPU rule (MpsNodeSharing::One, Slurm's one_sharing): a GPU without clients
// takes none while another GPU of its node serves some. Asked only of a GPU whose server would
// take the client, so the node's GPUs are looked at only then (and without allocating: this
// runs for every GPU a search looks at).
bool otherGpuServes(const ClusterState& state, GpuId id) {
  const Gpu& g = state.cluster().gpu(id);
  if (g.sharing.mode != SharingMode::Mps || g.sharing.mps.nodeSharing != MpsNodeSharing::One ||
      servesMps(state, id))
    return false;
  const Node& n = state.cluster().node(g.node);
  for (int i = 0; i < n.gpuCount(); ++i)
    if (servesMps(state, n.firstGpu + static_cast<GpuId>(i))) return true;
  return false;
}

// The servers of a GPU and the one that takes the client, or the one the client got furthest
// with: everything mpsFit needs to word a refusal, found without wording one.
struct ServerChoice {
  MpsRefusal refusal = MpsRefusal::NotMps;
  MpsServers servers;
  int chosen = -1;  // the fitting server, or the refusing one (-1: no server to ask)
  ServerUse use;    // of the refusing server
};

// Fills `c` (the caller's, so the servers are never copied).
void chooseServer(const ClusterState& state, GpuId id, const MpsAsk& ask, int instanceStart,
                  ServerChoice& c) {
  const Cluster& cluster = state.cluster();
  const Gpu& g = cluster.gpu(id);
  if (!g.sharing.runsMps()) return;
  if (state.nodeState(g.node) != NodeState::Up) {
    c.refusal = MpsRefusal::NodeNotUp;
    return;
  }
  const GpuOccupancy& o = state.gpu(id);
  if (std::any_of(o.mpsClients.begin(), o.mpsClients.end(),
                  [&](const MpsClient& m) { return m.job == ask.job; })) {
    c.refusal = MpsRefusal::AlreadyThere;
    return;
  }
  serversOf(cluster, o, id, c.servers);
  const int maxClients = cluster.modelOf(id).mpsMaxClients;
  // Fitting servers: the fullest (packing). Refusals: the one the client got furthest with, the
  // first of equals.
  int fitThreads = -1;
  for (int k = 0; k < c.servers.count; ++k) {
    const MpsServer& s = c.servers.items[static_cast<size_t>(k)];
    if (instanceStart != ClusterState::kAnyMpsServer && s.start != instanceStart) continue;
    const ServerUse u = useOf(o, s.start, g.sharing.mps.coLocation, ask);
    const MpsRefusal r = checkServer(s, u, g.sharing.mps, maxClients, ask);
    if (r == MpsRefusal::None) {
      if (c.refusal != MpsRefusal::None || u.threads > fitThreads)
        c.refusal = MpsRefusal::None, c.chosen = k, fitThreads = u.threads;
    } else if (c.refusal != MpsRefusal::None && (c.chosen < 0 || r > c.refusal)) {
      c.refusal = r, c.chosen = k, c.use = u;
    }
  }
  // A placement being restored (a named server) is a client already running: not refused.
  if (c.refusal == MpsRefusal::None && instanceStart == ClusterState::kAnyMpsServer &&
      otherGpuServes(state, id))
    c.refusal = MpsRefusal::OtherGpuServes;
}

// "node node5 serves MPS on GPU 0 only (...); GPU node5/0 has 10 % of its MPS active threads
// left; the task asks 25 %": the serving GPUs, and why the first that refuses does (or that one
// would take the client, for a placement asked of this GPU alone).
Text oneGpuText(const ClusterState& state, GpuId id, const MpsAsk& ask) {
  const Cluster& c = state.cluster();
  const NodeId node = c.gpu(id).node;
  const std::vector<int> serving = servingGpus(state, node);
  std::string list;
  for (int i : serving) list += (list.empty() ? "" : ", ") + std::to_string(i);
  Text why;
  for (int i : serving) {
    MpsFit fit = state.mpsFit(c.node(node).firstGpu + static_cast<GpuId>(i), ask);
    if (fit.ok()) {
      why = phrase(text::kMpsOneGpuRoom, i);
      break;
    }
    if (why.empty()) why = std::move(fit.why);
  }
  return phrase(text::kMpsOneGpu, c.node(node).name, list, std::move(why));
}

}  // namespace

MpsFit checkMps(const ClusterState& state, GpuId id, const MpsAsk& ask, int instanceStart) {
  ServerChoice c;
  chooseServer(state, id, ask, instanceStart, c);
  const int start =
      c.refusal == MpsRefusal::None ? c.servers.items[static_cast<size_t>(c.chosen)].start : -1;
  return {c.refusal, start, {}};
}

MpsFit ClusterState::mpsFit(GpuId id, const MpsAsk& ask, int instanceStart) const {
  ServerChoice c;
  chooseServer(*this, id, ask, instanceStart, c);
  if (c.refusal == MpsRefusal::None)
    return {MpsRefusal::None, c.servers.items[static_cast<size_t>(c.chosen)].start, {}};
  const std::string gpu = cluster_->gpuName(id);  // only a refusal names the GPU
  switch (c.refusal) {
    case MpsRefusal::NodeNotUp:
      return refuse(c.refusal, phrase(text::kMpsNodeNotUp, gpu));
    case MpsRefusal::AlreadyThere:
      return refuse(c.refusal, phrase(text::kMpsAlreadyThere, gpu));
    case MpsRefusal::OtherGpuServes:
      return refuse(c.refusal, oneGpuText(*this, id, ask));
    default:
      break;
  }
  if (c.chosen < 0) return refuse(MpsRefusal::NotMps, phrase(text::kMpsNotRunning, gpu));
  const MpsServer& s = c.servers.items[static_cast<size_t>(c.chosen)];
  const Gpu& g = cluster_->gpu(id);
  return refuse(c.refusal, refusalText(c.refusal, serverName(*cluster_, id, s), s, c.use,
                                       g.sharing.mps, cluster_->modelOf(id).mpsMaxClients, ask));
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
