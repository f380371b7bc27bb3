#include "service/gpu_faults.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/engine_text.h"
#include "core/mix.h"
#include "scheduler/command.h"
#include "topology/cluster.h"

namespace tessera {
namespace {

using json = nlohmann::json;

constexpr const char* kActor = "tesserad";  // who the audit log says drained and returned nodes

// Salts keep the draws for one fault independent of each other.
constexpr uint64_t kGapSalt = 1, kGpuSalt = 2, kXidSalt = 3;

// In the audit log like an operator's drain and undrain, said as the command would say them.
void audit(Engine& engine, const Command& c, const Text& result) {
  engine.recordCommand(kActor, phrase(text::kAuditApplied, describeText(c), result));
}

}  // namespace

const std::vector<XidKind>& injectedXids() {
  static const std::vector<XidKind> kinds{
      {79, "GPU has fallen off the bus", 3},
      {48, "Double Bit ECC Error", 1},
      {94, "Contained ECC error", 2},
      {95, "Uncontained ECC error", 1},
      {74, "NVLINK Error", 2},
      {119, "GSP RPC timeout", 1},
  };
  return kinds;
}

Text drainReasonOf(const Cluster& c, const ActiveGpuFault& f) {
  return phrase(text::kOutXid, f.xid, c.gpuName(f.gpu));
}

std::string xidMessage(int xid) {
  for (const XidKind& k : injectedXids())
    if (k.xid == xid) return k.message;
  return {};
}

GpuFaultInjector::GpuFaultInjector(double perDay, Seconds repair, uint64_t seed)
    : perDay_(perDay), repair_(repair), seed_(seed) {}

const ActiveGpuFault* GpuFaultInjector::faultOf(GpuId gpu) const {
  for (const ActiveGpuFault& f : active_)
    if (f.gpu == gpu) return &f;
  return nullptr;
}

double GpuFaultInjector::draw(uint64_t salt) const {
  return unitOf(mixBits(seed_ ^ mixBits(0xfa017ULL << 32 ^ count_ << 4 ^ salt)));
}

Seconds GpuFaultInjector::gapAfter(Seconds t) const {
  const double meanGap = 86400.0 / perDay_;
  return t + std::max<Seconds>(1, std::llround(-std::log1p(-draw(kGapSalt)) * meanGap));
}

bool GpuFaultInjector::advance(Engine& engine) {
  const Seconds now = engine.now();
  const size_t before = active_.size();
  const uint64_t injectedBefore = count_;
  if (perDay_ > 0) {
    if (!next_) next_ = gapAfter(now);
    while (*next_ <= now) {
      inject(engine, *next_);
      next_ = gapAfter(*next_);
    }
  }
  // After the catch-up, so a fault injected for the past that is already over does not hold its
  // node for another tick; and with the rate at 0 too, so faults stored before still end.
  repairDue(engine);
  return active_.size() != before || count_ != injectedBefore;
}

void GpuFaultInjector::repairDue(Engine& engine) {
  const Seconds now = engine.now();
  std::vector<ActiveGpuFault> repaired;
  std::erase_if(active_, [&](const ActiveGpuFault& f) {
    if (f.until > now) return false;
    repaired.push_back(f);
    return true;
  });
  for (const ActiveGpuFault& f : repaired) {
    // Only this fault's hold goes: an operator's drain, or another GPU's fault, keeps the node
    // out; a hold the operator already cleared is simply gone.
    const NodeId n = engine.cluster().gpu(f.gpu).node;
    if (!engine.nodeHolds(n).find(HoldOwner::GpuFault, f.gpu)) continue;
    (void)engine.removeNodeHold(n, HoldOwner::GpuFault, f.gpu);
    audit(engine, Command{cmd::Undrain{engine.cluster().node(n).name}},
          phrase(text::kDidUndrain, engine.cluster().node(n).name));
  }
}

void GpuFaultInjector::inject(Engine& engine, Seconds at) {
  const Cluster& c = engine.cluster();
  std::vector<GpuId> candidates;
  for (const Gpu& g : c.gpus())
    if (engine.state().nodeState(g.node) == NodeState::Up && !faultOf(g.id))
      candidates.push_back(g.id);
  double total = 0;
  for (const XidKind& k : injectedXids()) total += k.weight;
  double pick = draw(kXidSalt) * total;
  const XidKind* kind = &injectedXids().back();
  for (const XidKind& k : injectedXids())
    if ((pick -= k.weight) < 0) {
      kind = &k;
      break;
    }
  const double gpuDraw = draw(kGpuSalt);
  ++count_;
  if (candidates.empty()) return;  // every node is out already
  const auto slot = static_cast<size_t>(gpuDraw * static_cast<double>(candidates.size()));
  const GpuId gpu = candidates[std::min(candidates.size() - 1, slot)];
  ActiveGpuFault f{gpu, kind->xid, at, at + repair_};
  // Its jobs go back to the queue, booked by the engine as preemptions with the fault as reason.
  const Text why = phrase(text::kGpuFault, c.gpuName(gpu), kind->xid, kind->message);
  for (JobId v : engine.runningJobsOn(c.gpu(gpu).node, gpu))
    (void)engine.preempt(v, kNoJob, kActor, why);
  const NodeId n = c.gpu(gpu).node;
  const Text reason = drainReasonOf(c, f);
  (void)engine.putNodeHold(n, NodeHold{HoldOwner::GpuFault, gpu, reason, false, at});
  audit(engine, Command{cmd::Drain{c.node(n).name, reason}},
        phrase(text::kDidDrainWhy, c.node(n).name, reason));
  active_.push_back(std::move(f));
}

std::string GpuFaultInjector::save(const Cluster& cluster) const {
  json faults = json::array();
  for (const ActiveGpuFault& f : active_)
    faults.push_back({{"gpu", f.gpu},
                      {"xid", f.xid},
                      {"since", f.since},
                      {"until", f.until},
                      {"reason", drainReasonOf(cluster, f).english()}});
  json out{{"count", count_}, {"faults", std::move(faults)}};
  if (next_) out["next"] = *next_;
  return out.dump();
}

Status GpuFaultInjector::restore(const std::string& text, const Engine& engine) {
  try {
    const json in = json::parse(text);
    count_ = in.at("count").get<uint64_t>();
    next_.reset();
    if (in.contains("next")) next_ = in.at("next").get<Seconds>();
    active_.clear();
    for (const json& f : in.at("faults")) {
      // "reason" is written for a reader of the database; it is derived again from the rest.
      ActiveGpuFault a{f.at("gpu").get<GpuId>(), f.at("xid").get<int>(),
                       f.at("since").get<Seconds>(), f.at("until").get<Seconds>()};
      if (a.gpu >= engine.cluster().gpus().size())
        return Error{"stored GPU faults: no GPU " + std::to_string(a.gpu) + " in this cluster", {}};
      active_.push_back(std::move(a));
    }
  } catch (const json::exception& ex) {
    return Error{std::string("stored GPU faults are malformed: ") + ex.what(), {}};
  }
  return okStatus();
}

}  // namespace tessera
