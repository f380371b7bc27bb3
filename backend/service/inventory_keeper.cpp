#include "service/inventory_keeper.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/engine_text.h"
#include "core/input_limits.h"
#include "core/strings.h"
#include "service/node_join.h"
#include "topology/mig_layout.h"

namespace tessera {

const char* admissionName(Admission a) {
  switch (a) {
    case Admission::Known:
      return "known";
    case Admission::Pending:
      return "pending-admission";
    case Admission::Admitted:
      return "admitted";
  }
  return "known";
}

std::optional<Admission> admissionFromName(std::string_view name) {
  for (Admission a : {Admission::Known, Admission::Pending, Admission::Admitted})
    if (name == admissionName(a)) return a;
  return std::nullopt;
}

namespace {

constexpr const char* kActor = "inventory";
constexpr int kMaxGpusPerNode = 64;
constexpr const char* kAdmittedKey = "inventory.admitted";
constexpr const char* kHeldKey = "inventory.held";
constexpr const char* kLayoutsKey = "inventory.layouts";

Error badField(const std::string& field, const std::string& what) {
  return Error::of(literal(field + ": " + what));
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

const InventoryGpu* reportedAt(const InventoryReport& r, int index) {
  for (const auto& g : r.gpus)
    if (g.index == index) return &g;
  return nullptr;
}

// The catalog's names, for a message about one it lacks (the first ten).
std::string catalogNames(const GpuCatalog& catalog) {
  std::vector<std::string> names;
  for (const auto& m : catalog.models()) {
    if (names.size() == 10) {
      names.push_back("...");
      break;
    }
    names.push_back(m->id);
  }
  return joined(names);
}

// The layout in canonical form (by start, busy marks dropped) for comparison and messages.
MigLayout canonical(MigLayout layout) {
  for (auto& inst : layout) inst.busy = false;
  layout.sortByStart();
  return layout;
}

std::string layoutText(const GpuModel& model, const MigLayout& layout) {
  const MigLayout c = canonical(layout);
  return c.empty() ? std::string("-") : formatMigLayout(model, c);
}

// The GPU the model has at `index` of the known node, when it is in MIG mode there and of the
// model the node reports (else a report's layout says nothing the engine could use).
const Gpu* migGpuAt(const Cluster& c, const Node& node, const InventoryGpu& seen) {
  if (seen.index >= node.gpuCount() || !seen.fault.empty() || !seen.migLayout) return nullptr;
  const Gpu& gpu = c.gpu(node.firstGpu + static_cast<GpuId>(seen.index));
  if (gpu.sharing.mode != SharingMode::Mig || c.modelOf(gpu.id).id != seen.model) return nullptr;
  return &gpu;
}

}  // namespace

Status InventoryKeeper::check(const Engine& engine, const InventoryReport& r) const {
  if (r.node.empty()) return badField("node", "empty (start the agent with --node NAME)");
  TESSERA_CHECK(checkTextField(r.node, kMaxNameChars, "node"));
  TESSERA_CHECK(checkTextField(r.hostname, kMaxNameChars, "hostname"));
  if (r.gpus.size() > static_cast<size_t>(kMaxGpusPerNode))
    return badField("gpus", std::to_string(r.gpus.size()) + " GPUs; at most " +
                                std::to_string(kMaxGpusPerNode) + " per node");
  std::set<int> indexes;
  std::set<std::string> uuids;
  const Node* known = engine.cluster().findNode(r.node);
  for (size_t i = 0; i < r.gpus.size(); ++i) {
    const InventoryGpu& g = r.gpus[i];
    const std::string at = "gpus[" + std::to_string(i) + "]";
    if (g.index < 0 || g.index >= kMaxGpusPerNode || !indexes.insert(g.index).second)
      return badField(at + ".index", std::to_string(g.index) + " is out of range or repeated");
    if (!g.fault.empty()) continue;  // a GPU fallen off the bus is known by its index alone
    if (g.uuid.empty() || !uuids.insert(g.uuid).second)
      return badField(at + ".uuid", "'" + g.uuid + "' is empty or repeated");
    TESSERA_CHECK(checkTextField(g.model, kMaxNameChars, at + ".model"));
    if (g.model.empty())
      return badField(at + ".model", "the agent's catalog does not know '" + g.name +
                                         "' (add the model to the GPU catalog on the node)");
    if (catalog_ && !catalog_->find(g.model))
      return badField(at + ".model", "unknown GPU model '" + g.model +
                                         "' (tesserad's catalog: " + catalogNames(*catalog_) + ")");
    if (known && g.migLayout && g.index < known->gpuCount()) {
      const GpuId id = known->firstGpu + static_cast<GpuId>(g.index);
      // A GPU the model has without MIG is a warning in applyToModel, not a refusal here.
      const bool migInModel = engine.cluster().gpu(id).sharing.mode == SharingMode::Mig;
      if (migInModel && engine.cluster().modelOf(id).id == g.model) {
        // Parsed and checked as a repartition would be: a layout that cannot exist on this
        // model (a placement it does not allow, overlapping instances) is bad data.
        auto layout = parseMigLayout(engine.cluster().modelOf(id), *g.migLayout);
        if (!layout) return badField(at + ".mig_layout", layout.error().str());
        if (Status st = engine.state().checkMigLayout(id, *layout); !st)
          return badField(at + ".mig_layout", st.error().str());
      }
    }
  }
  const auto it = nodes_.find(r.node);
  if (it != nodes_.end() && !r.hostname.empty() && !it->second.report.hostname.empty() &&
      it->second.report.hostname != r.hostname)
    return Error::wrongState(literal(
        "node: '" + r.node + "' is already reported by host '" + it->second.report.hostname +
        "'; this report comes from host '" + r.hostname +
        "' (two agents with one --node name? stop one, or restart tesserad to forget the old)"));
  return okStatus();
}

Expected<InventoryReply> InventoryKeeper::ingest(Engine& engine, const InventoryReport& r) {
  TESSERA_CHECK(check(engine, r));
  InventoryReply reply;
  reply.warnings = r.warnings;
  const bool first = nodes_.find(r.node) == nodes_.end();
  if (const Node* node = engine.cluster().findNode(r.node)) {
    applyToModel(engine, *node, r, reply);
  } else {
    reply.admission = Admission::Pending;
    if (autoAdmit_ || admitted_.count(r.node)) joinAdmitted(engine, r, reply);
    if (first && reply.admission == Admission::Pending)
      event(engine,
            "node " + r.node + " (host " + r.hostname + ", " + std::to_string(r.gpus.size()) +
                " GPUs) is not in the cluster model: pending admission (tessera ctl node admit " +
                r.node + ")",
            reply);
  }
  nodes_[r.node] = Record{r, engine.now(), reply.warnings};
  NodeLayouts& layouts = layouts_[r.node];
  if (NodeLayouts now = layoutsOf(engine, r); now != layouts) {
    layouts = std::move(now);
    layoutsChanged_ = true;
  }
  if (const Node* node = engine.cluster().findNode(r.node))
    holdPending(engine, *node, layouts, &reply);
  return reply;
}

InventoryKeeper::NodeLayouts InventoryKeeper::layoutsOf(const Engine& engine,
                                                        const InventoryReport& r) const {
  NodeLayouts out;
  const Node* node = engine.cluster().findNode(r.node);
  if (!node) return out;
  for (const auto& seen : r.gpus)
    if (const Gpu* gpu = migGpuAt(engine.cluster(), *node, seen))
      if (auto layout = parseMigLayout(engine.cluster().modelOf(gpu->id), *seen.migLayout))
        out[seen.index] = canonical(*layout);
  return out;
}

std::optional<MigLayout> InventoryKeeper::pendingLayout(const Engine& engine, const Gpu& gpu,
                                                        const NodeLayouts& reported) const {
  const Node& node = engine.cluster().node(gpu.node);
  const auto seen = reported.find(static_cast<int>(gpu.id - node.firstGpu));
  if (seen == reported.end()) return std::nullopt;
  const GpuOccupancy& o = engine.state().gpu(gpu.id);
  if (canonical(o.layout) == seen->second) return std::nullopt;
  MigLayout planned = o.layout;
  for (int i = 0; i < planned.size(); ++i)
    planned[i].busy = o.instanceOwner[static_cast<size_t>(i)] != kNoJob;
  planned.sortByStart();
  return planned;
}

const MigLayout* InventoryKeeper::lastReported(const Engine& engine, const Gpu& gpu) const {
  const Node& node = engine.cluster().node(gpu.node);
  const auto it = layouts_.find(node.name);
  if (it == layouts_.end()) return nullptr;
  const auto seen = it->second.find(static_cast<int>(gpu.id - node.firstGpu));
  return seen == it->second.end() ? nullptr : &seen->second;
}

void InventoryKeeper::holdPendingLayouts(Engine& engine) {
  if (!migApply_) return;
  for (const auto& [name, reported] : layouts_)
    if (const Node* node = engine.cluster().findNode(name))
      holdPending(engine, *node, reported, nullptr);
}

void InventoryKeeper::holdPendingLayout(Engine& engine, const std::string& node) {
  const auto it = layouts_.find(node);
  if (it == layouts_.end()) return;
  if (const Node* n = engine.cluster().findNode(node)) holdPending(engine, *n, it->second, nullptr);
}

// A GPU whose planned layout the node lacks holds the node (draining: its running jobs stay,
// nothing new starts) until a report shows the layout; the reason names both layouts.
void InventoryKeeper::holdPending(Engine& engine, const Node& node, const NodeLayouts& reported,
                                  InventoryReply* reply) {
  if (!migApply_) return;
  const Cluster& c = engine.cluster();
  for (int i = 0; i < node.gpuCount(); ++i) {
    const Gpu& gpu = c.gpu(node.firstGpu + static_cast<GpuId>(i));
    const bool held = engine.nodeHolds(node.id).find(HoldOwner::MigReconfigure, gpu.id) != nullptr;
    const auto planned = pendingLayout(engine, gpu, reported);
    if (planned.has_value() == held) continue;
    const GpuModel& model = c.modelOf(gpu.id);
    const std::string name = c.gpuName(gpu.id);
    std::string line;
    if (planned) {
      const std::string to = layoutText(model, *planned);
      (void)engine.putNodeHold(node.id,
                               NodeHold{HoldOwner::MigReconfigure, gpu.id,
                                        literal("MIG repartition of " + name + " to " + to +
                                                ": waiting for the node's agent to apply it"),
                                        false, 0});
      line = name + ": MIG layout " + to + " planned, the node has " +
             layoutText(model, reported.at(i)) + ": held until its agent applies it";
    } else {
      (void)engine.removeNodeHold(node.id, HoldOwner::MigReconfigure, gpu.id);
      line = name + ": MIG layout " + layoutText(model, engine.state().gpu(gpu.id).layout) +
             " is on the node: hold lifted";
    }
    engine.recordCommand(kActor, literal(line));
    if (reply) reply->changes.push_back(line);
  }
}

std::vector<MigWork> InventoryKeeper::migWork(const Engine& engine, const std::string& node) const {
  std::vector<MigWork> out;
  const auto it = layouts_.find(node);
  const Node* n = engine.cluster().findNode(node);
  if (!migApply_ || it == layouts_.end() || !n) return out;
  const bool held = engine.state().nodeState(n->id) != NodeState::Up;
  for (int i = 0; i < n->gpuCount(); ++i) {
    const Gpu& gpu = engine.cluster().gpu(n->firstGpu + static_cast<GpuId>(i));
    const auto planned = pendingLayout(engine, gpu, it->second);
    if (!planned) continue;
    const GpuModel& model = engine.cluster().modelOf(gpu.id);
    out.push_back(MigWork{
        i, model.id, planned->empty() ? "-" : formatMigLayout(model, *planned, true), held,
        held ? std::string()
             : "node " + node + " is not held yet (tesserad holds it at its " + "next cycle)"});
  }
  return out;
}

const GpuCatalog& InventoryKeeper::catalog() const {
  return catalog_ ? *catalog_ : GpuCatalog::builtin();
}

Expected<NodeJoin> InventoryKeeper::join(const Engine& engine, const InventoryReport& r) const {
  TESSERA_TRY(cluster, clusterWithNode(engine.cluster(), r, catalog()));
  const Node& n = *cluster->findNode(r.node);
  const NodeHardware& hw = *n.hw;
  std::string what = std::to_string(hw.gpuCount) + " x " + hw.gpuModel->id;
  if (hw.cpus > 0) what += ", " + std::to_string(hw.cpus) + " CPUs";
  if (hw.memoryMiB > 0) what += ", " + std::to_string(hw.memoryMiB / 1024) + " GiB";
  what += ", leaf " + cluster->switches()[static_cast<size_t>(n.leaf)].name;
  if (!n.pool.empty()) what += ", pool " + n.pool;
  return NodeJoin{r.node, "node " + r.node + " joins the cluster model (" + what + ")",
                  std::move(cluster)};
}

// Auto-admitted, or admitted by an operator before admission made nodes join: the node joins
// with this report. A report that cannot make a node (a faulted GPU, two models) leaves it
// pending with the reason as a warning, and it tries again with the next report.
void InventoryKeeper::joinAdmitted(Engine& engine, const InventoryReport& r,
                                   InventoryReply& reply) {
  auto joined = join(engine, r);
  if (!joined) {
    reply.warnings.push_back("node " + r.node + " is admitted but cannot join the cluster model: " +
                             joined.error().str());
    return;
  }
  const std::string why = admitted_.count(r.node) ? "admitted before" : "inventory.auto_admit";
  admitted_.erase(r.node);
  event(engine, joined->message + ": admitted (" + why + ")", reply);
  reply.admission = Admission::Admitted;
  reply.join = std::move(*joined);
}

void InventoryKeeper::applyToModel(Engine& engine, const Node& node, const InventoryReport& r,
                                   InventoryReply& reply) {
  const Cluster& c = engine.cluster();
  for (int i = 0; i < node.gpuCount(); ++i) {
    const Gpu& gpu = c.gpu(node.firstGpu + static_cast<GpuId>(i));
    const InventoryGpu* seen = reportedAt(r, i);
    if (!seen) {
      holdMissing(engine, gpu, "missing from the node's inventory", reply);
      continue;
    }
    if (!seen->fault.empty()) {
      holdMissing(engine, gpu, seen->fault, reply);
      continue;
    }
    liftHold(engine, gpu, reply);
    const GpuModel& model = c.modelOf(gpu.id);
    if (seen->model != model.id)
      reply.warnings.push_back(c.gpuName(gpu.id) + " is " + seen->model + " on the node but " +
                               model.id + " in the cluster model");
    else if (seen->migEnabled != (gpu.sharing.mode == SharingMode::Mig))
      reply.warnings.push_back(c.gpuName(gpu.id) + ": MIG mode is " +
                               (seen->migEnabled ? "on" : "off") +
                               " on the node but not in the cluster model");
    else if (seen->migLayout)
      followLayout(engine, gpu, *seen, reply);
  }
  for (const auto& g : r.gpus)
    if (g.index >= node.gpuCount())
      reply.warnings.push_back(node.name + " reports GPU " + std::to_string(g.index) +
                               ", which the cluster model lacks (it has " +
                               std::to_string(node.gpuCount()) + ")");
}

// The GPU's jobs go back to the queue and its node is held for it (an inventory hold, which
// only a report showing the GPU again lifts: node_holds.h).
void InventoryKeeper::holdMissing(Engine& engine, const Gpu& gpu, const std::string& why,
                                  InventoryReply& reply) {
  if (held_.count(gpu.id)) return;
  const std::string name = engine.cluster().gpuName(gpu.id);
  const Text reason = literal("GPU " + name + ": " + why);
  for (JobId j : engine.runningJobsOn(gpu.node, gpu.id))
    (void)engine.preempt(j, kNoJob, kActor, reason);
  (void)engine.putNodeHold(gpu.node, NodeHold{HoldOwner::Inventory, gpu.id, reason, false, 0});
  held_.insert(gpu.id);
  event(engine, "GPU " + name + ": " + why + ": held out (fault)", reply);
}

void InventoryKeeper::liftHold(Engine& engine, const Gpu& gpu, InventoryReply& reply) {
  if (!held_.erase(gpu.id)) return;
  (void)engine.removeNodeHold(gpu.node, HoldOwner::Inventory, gpu.id);
  event(engine,
        "GPU " + engine.cluster().gpuName(gpu.id) + ": back in the node's inventory: hold lifted",
        reply);
}

// A layout changed on the node replaces the engine's. Jobs on instances the node no longer has
// are requeued by the repartition; each is named in a warning and the event, never dropped
// quietly. A layout the node reported before (by this tesserad, or before its restart), though,
// is not news: the engine's differs because it was repartitioned since, and the node is to
// follow (holdPending).
void InventoryKeeper::followLayout(Engine& engine, const Gpu& gpu, const InventoryGpu& seen,
                                   InventoryReply& reply) {
  const GpuModel& model = engine.cluster().modelOf(gpu.id);
  auto layout = parseMigLayout(model, *seen.migLayout);  // checked in check()
  if (!layout) return;
  const GpuOccupancy& now = engine.state().gpu(gpu.id);
  const std::string before = layoutText(model, now.layout);
  const std::string after = layoutText(model, *layout);
  if (before == after) return;
  const std::string name = engine.cluster().gpuName(gpu.id);
  if (migApply_) {
    if (const MigLayout* previous = lastReported(engine, gpu);
        previous && layoutText(model, *previous) == after)
      return;
    if (engine.nodeHolds(gpu.node).find(HoldOwner::MigReconfigure, gpu.id)) {
      // Changed, but not into the plan: an apply that stopped part-way. The plan stands and the
      // agent tries it again.
      reply.warnings.push_back(name + ": the node's MIG layout is " + after + ", not the planned " +
                               before + "; the agent applies it again");
      return;
    }
  }
  std::vector<std::string> lost;
  for (int i = 0; i < now.layout.size(); ++i) {
    const JobId owner = now.instanceOwner[static_cast<size_t>(i)];
    const bool kept = std::any_of(layout->begin(), layout->end(), [&](const MigInstance& m) {
      return m.sameShape(now.layout[i]) && m.start == now.layout[i].start;
    });
    if (owner != kNoJob && !kept)
      lost.push_back("job " + std::to_string(owner) + " on " +
                     formatMigInstance(model, now.layout[i]));
  }
  for (const auto& l : lost)
    reply.warnings.push_back(name + ": " + l + ": the instance is gone from the node; requeued");
  layout->sortByStart();
  if (Status st = engine.repartition(gpu.id, *layout, true, kActor); !st) {
    reply.warnings.push_back(name + ": cannot follow the node's MIG layout " + after + ": " +
                             st.error().str());
    return;
  }
  event(engine,
        name + ": MIG layout changed on the node: " + before + " -> " + after +
            (lost.empty() ? std::string() : " (instances in use gone: " + joined(lost) + ")"),
        reply);
}

void InventoryKeeper::event(Engine& engine, const std::string& line, InventoryReply& reply) const {
  engine.recordCommand(kActor, literal(line));
  reply.changes.push_back(line);
}

Expected<NodeJoin> InventoryKeeper::admit(Engine& engine, const std::string& node,
                                          const std::string& actor) {
  if (engine.cluster().findNode(node))
    return Error::wrongState(literal("node '" + node + "' is already in the cluster model"));
  const auto it = nodes_.find(node);
  if (it == nodes_.end())
    return Error::notFound(literal("no node '" + node + "' has reported its inventory"));
  TESSERA_TRY(joined, join(engine, it->second.report));
  // Audited as the operator's commands are ("hold job 7: applied: ...").
  engine.recordCommand(
      actor, phrase(text::kAuditApplied, literal("admit node " + node), literal(joined.message)));
  admitted_.erase(node);
  return joined;
}

std::vector<NodeInventoryView> InventoryKeeper::list(const Engine& engine) const {
  std::vector<NodeInventoryView> out;
  const Cluster& c = engine.cluster();
  for (const auto& [name, rec] : nodes_) {
    NodeInventoryView v;
    v.node = name;
    v.hostname = rec.report.hostname;
    v.source = rec.report.source;
    v.driverVersion = rec.report.driverVersion;
    const bool known = c.findNode(name) != nullptr;
    v.admission = known                   ? Admission::Known
                  : admitted_.count(name) ? Admission::Admitted
                                          : Admission::Pending;
    v.reportedAt = rec.at;
    v.gpus = static_cast<int>(rec.report.gpus.size());
    v.warnings = rec.warnings;
    for (GpuId g : held_)
      if (known && c.node(c.gpu(g).node).name == name) v.missingGpus.push_back(c.gpuName(g));
    out.push_back(std::move(v));
  }
  return out;
}

namespace {
template <class Set>
std::string listText(const Set& items) {
  std::ostringstream s;
  for (const auto& i : items) s << (s.tellp() > 0 ? "," : "") << i;
  return s.str();
}
}  // namespace

void InventoryKeeper::save(const Engine& engine,
                           std::vector<std::pair<std::string, std::string>>& meta) const {
  meta.emplace_back(kAdmittedKey, listText(admitted_));
  meta.emplace_back(kHeldKey, listText(held_));
  if (layoutsChanged_) {
    // {"node": {"index": "layout"}}: by name and index, as the cluster spec has them.
    nlohmann::json layouts = nlohmann::json::object();
    for (const auto& [name, reported] : layouts_) {
      const Node* node = engine.cluster().findNode(name);
      if (!node) continue;
      for (const auto& [index, layout] : reported) {
        const GpuId g = node->firstGpu + static_cast<GpuId>(index);
        layouts[name][std::to_string(index)] = layoutText(engine.cluster().modelOf(g), layout);
      }
    }
    layoutsText_ = layouts.dump();
    layoutsChanged_ = false;
  }
  meta.emplace_back(kLayoutsKey, layoutsText_);
}

void InventoryKeeper::restore(const Engine& engine,
                              const std::vector<std::pair<std::string, std::string>>& meta) {
  admitted_.clear();
  held_.clear();
  layoutsChanged_ = true;  // the engine (and its cluster) may be new: a join rebuilds it
  for (const auto& [key, value] : meta) {
    if (key == kAdmittedKey)
      for (const auto& n : split(value, ','))
        if (!n.empty()) admitted_.insert(std::string(n));
    if (key == kHeldKey)
      for (const auto& g : split(value, ','))
        if (!g.empty()) held_.insert(static_cast<GpuId>(std::stoul(std::string(g))));
    if (key == kLayoutsKey) restoreLayouts(engine, value);
  }
}

// Only for nodes that have not reported since this tesserad started: a reload after a failed
// commit keeps what the nodes said since. An entry that no longer fits the model (a node or GPU
// gone, a layout the model refuses, the text edited by hand) is left out: the node's next report
// is then taken as its layout, as it was before layouts were kept.
void InventoryKeeper::restoreLayouts(const Engine& engine, const std::string& stored) {
  const auto json = nlohmann::json::parse(stored, nullptr, false);
  if (!json.is_object()) return;
  const Cluster& c = engine.cluster();
  for (const auto& [name, gpus] : json.items()) {
    const Node* node = c.findNode(name);
    if (!node || nodes_.count(name) || !gpus.is_object()) continue;
    NodeLayouts reported;
    for (const auto& [index, text] : gpus.items()) {
      int i = -1;
      const auto [end, ec] = std::from_chars(index.data(), index.data() + index.size(), i);
      if (ec != std::errc() || end != index.data() + index.size() || i < 0 ||
          i >= node->gpuCount() || !text.is_string())
        continue;
      const GpuId g = node->firstGpu + static_cast<GpuId>(i);
      if (c.gpu(g).sharing.mode != SharingMode::Mig) continue;
      const std::string t = text.get<std::string>();
      auto layout = t == "-" ? Expected<MigLayout>(MigLayout{}) : parseMigLayout(c.modelOf(g), t);
      if (layout) reported[i] = canonical(*layout);
    }
    layouts_[name] = std::move(reported);
  }
}

}  // namespace tessera
