// Node holds keyed by owner: each owner (operator, failure, GPU fault per GPU, MIG
// reconfiguration, executor) adds and removes only its own hold; the node's state and reason
// are derived. Overlapping causes never undo each other, an operator's undrain clears what they
// can vouch for and says what still keeps the node out, and the database gives every owner its
// own hold back after a restart.
#include <QtTest>

#include "clusterspec/cluster_spec.h"
#include "core/engine_text.h"
#include "scheduler/command.h"
#include "scheduler/engine.h"
#include "store/node_holds_codec.h"

using namespace tessera;
using json = nlohmann::json;

namespace {

Engine demoEngine(std::shared_ptr<const Cluster> cluster = demoCluster()) {
  Workload w;
  w.teams = {Team{"vision", "", 1, {}}};
  auto e = Engine::create(std::move(cluster), w);
  if (!e) qFatal("%s", e.error().str().c_str());
  return std::move(*e);
}

NodeHold hold(HoldOwner owner, Text reason, bool down = false,
              std::optional<GpuId> gpu = std::nullopt) {
  return NodeHold{owner, gpu, std::move(reason), down, 0};
}

// The k-th node that starts up (the demo cluster declares some out).
const Node& upNode(const Engine& e, size_t k) {
  for (const Node& n : e.cluster().nodes())
    if (e.nodeHolds(n.id).empty() && k-- == 0) return n;
  qFatal("the demo cluster has too few up nodes");
}

Expected<CommandResult> run(Engine& e, Command c) {
  return execute(e, c, "alice", false);
}

}  // namespace

class TstNodeHolds : public QObject {
  Q_OBJECT

 private slots:
  void stateAndReasonAreDerived() {
    NodeHolds h;
    QCOMPARE(h.state(), NodeState::Up);
    QVERIFY(h.reason().empty());
    h.put(hold(HoldOwner::GpuFault, literal("xid 79 on 0"), false, GpuId{0}));
    QCOMPARE(h.state(), NodeState::Draining);
    h.put(hold(HoldOwner::Executor, literal("slurm: kill task failed")));
    // The newest reason, while no operator gave one.
    QVERIFY(h.reason() == literal("slurm: kill task failed"));
    h.put(hold(HoldOwner::Operator, literal("psu")));
    h.put(hold(HoldOwner::Failure, literal("node failure"), true));
    QCOMPARE(h.state(), NodeState::Down);
    // The operator's words win over a newer hold's.
    QVERIFY(h.reason() == literal("psu"));
    QVERIFY(h.remove(HoldOwner::Failure));
    QCOMPARE(h.state(), NodeState::Draining);
    QVERIFY(!h.remove(HoldOwner::Failure));  // already gone
    // Per-GPU owners are keyed by GPU: removing GPU 1's fault leaves GPU 0's.
    QVERIFY(!h.remove(HoldOwner::GpuFault, GpuId{1}));
    QVERIFY(h.find(HoldOwner::GpuFault, GpuId{0}));
    // Put again with the same key replaces (a new reason), never duplicates.
    h.put(hold(HoldOwner::Operator, literal("psu swap")));
    QCOMPARE(h.all().size(), size_t{3});
    QVERIFY(h.reason() == literal("psu swap"));
  }

  void ownerNamesRoundTrip() {
    for (HoldOwner o : {HoldOwner::Operator, HoldOwner::Failure, HoldOwner::GpuFault,
                        HoldOwner::MigReconfigure, HoldOwner::Executor})
      QCOMPARE(holdOwnerFromName(holdOwnerName(o)), std::optional<HoldOwner>(o));
    QVERIFY(!holdOwnerFromName("slurm"));
  }

  // Two faulty GPUs on one node are two holds: repairing one leaves the node out for the other.
  void twoFaultsOnOneNodeAreTwoHolds() {
    Engine e = demoEngine();
    const Node& n = upNode(e, 0);
    const GpuId g0 = n.firstGpu, g1 = n.firstGpu + 1;
    QVERIFY(e.putNodeHold(n.id, hold(HoldOwner::GpuFault, literal("xid on 0"), false, g0)));
    QVERIFY(e.putNodeHold(n.id, hold(HoldOwner::GpuFault, literal("xid on 1"), false, g1)));
    QVERIFY(e.removeNodeHold(n.id, HoldOwner::GpuFault, g0));
    QCOMPARE(e.state().nodeState(n.id), NodeState::Draining);
    QVERIFY(e.nodeReason(n.id) == literal("xid on 1"));
    QVERIFY(e.removeNodeHold(n.id, HoldOwner::GpuFault, g1));
    QCOMPARE(e.state().nodeState(n.id), NodeState::Up);
    QVERIFY(e.nodeReason(n.id).empty());
  }

  // The operator's drain outlasts the fault it overlaps, whichever came first.
  void anOperatorsDrainOutlastsAFault() {
    Engine e = demoEngine();
    const Node& n = upNode(e, 0);
    QVERIFY(e.putNodeHold(n.id, hold(HoldOwner::GpuFault, literal("xid"), false, n.firstGpu)));
    QVERIFY(run(e, Command{cmd::Drain{n.name, literal("psu")}}));
    QVERIFY(e.removeNodeHold(n.id, HoldOwner::GpuFault, n.firstGpu));
    QCOMPARE(e.state().nodeState(n.id), NodeState::Draining);
    QVERIFY(e.nodeReason(n.id) == literal("psu"));
  }

  // Undrain clears the operator's, a fault's and the executor's holds; a failure keeps the node
  // down, and the reply says why it is still out.
  void undrainSaysWhatStillKeepsTheNodeOut() {
    Engine e = demoEngine();
    const Node& n = upNode(e, 0);
    QVERIFY(e.putNodeHold(n.id, hold(HoldOwner::Failure, phrase(text::kOutNodeFailure), true)));
    QVERIFY(e.putNodeHold(n.id, hold(HoldOwner::GpuFault, literal("xid"), false, n.firstGpu)));
    QVERIFY(e.putNodeHold(n.id, hold(HoldOwner::Executor, literal("slurm says"))));
    QVERIFY(run(e, Command{cmd::Drain{n.name, literal("psu")}}));
    auto r = run(e, Command{cmd::Undrain{n.name}});
    QVERIFY(r);
    QCOMPARE(r->message.english(), "node " + n.name + " undrained, but still out: node failure");
    QCOMPARE(e.nodeHolds(n.id).all().size(), size_t{1});
    QCOMPARE(e.state().nodeState(n.id), NodeState::Down);
    // Nothing left the operator can clear: a second undrain is refused.
    QVERIFY(!run(e, Command{cmd::Undrain{n.name}}));
    QVERIFY(e.removeNodeHold(n.id, HoldOwner::Failure));
    QCOMPARE(e.state().nodeState(n.id), NodeState::Up);
  }

  // A drain without a reason is refused only when the operator's hold is already there.
  void drainingAFaultedNodeMakesItTheOperators() {
    Engine e = demoEngine();
    const Node& n = upNode(e, 0);
    QVERIFY(e.putNodeHold(n.id, hold(HoldOwner::GpuFault, literal("xid"), false, n.firstGpu)));
    QVERIFY(run(e, Command{cmd::Drain{n.name, {}}}));
    QVERIFY(e.nodeHolds(n.id).find(HoldOwner::Operator));
    QVERIFY(!run(e, Command{cmd::Drain{n.name, {}}}));
  }

  void aDownHoldNeedsTheNodeEmpty() {
    Engine e = demoEngine();
    Job j;
    j.id = 1;
    j.team = "vision";
    j.priorityClass = "experiment";
    j.perTask.kind = GpuRequest::Kind::Whole;
    j.perTask.gpus = 1;
    QVERIFY(e.submit(j));
    e.runCycle();
    const JobRecord* r = e.job(1);
    QCOMPARE(r->state, JobState::Running);
    const NodeId n = r->placement->tasks.front().node;
    QVERIFY(!e.putNodeHold(n, hold(HoldOwner::Failure, literal("gone"), true)));
    QCOMPARE(e.state().nodeState(n), NodeState::Up);
    QVERIFY(e.nodeHolds(n).empty());
    // A draining hold is fine: running jobs stay.
    QVERIFY(e.putNodeHold(n, hold(HoldOwner::Executor, literal("slurm drain"))));
    QCOMPARE(e.job(1)->state, JobState::Running);
  }

  // A node the cluster spec declares draining is the site operator's word: undrain returns it.
  void aSpecDrainedNodeIsTheOperators() {
    auto cluster = loadClusterSpec(R"(version: 1
name: declared
node_templates:
  a100: {gpu_model: A100-SXM4-80GB, gpus: 8}
fabric:
  leafs: [{name: leaf-1}]
nodes:
  - {name: n1, template: a100, leaf: leaf-1}
  - {name: n2, template: a100, leaf: leaf-1, state: draining}
  - {name: n3, template: a100, leaf: leaf-1, state: down}
)",
                                   "declared.yaml");
    QVERIFY2(cluster, cluster ? "" : cluster.error().str().c_str());
    Engine e = demoEngine(*cluster);
    const Node& n2 = *e.cluster().findNode("n2");
    const Node& n3 = *e.cluster().findNode("n3");
    QCOMPARE(e.state().nodeState(n2.id), NodeState::Draining);
    QCOMPARE(e.state().nodeState(n3.id), NodeState::Down);
    QVERIFY(run(e, Command{cmd::Undrain{"n2"}}));
    QVERIFY(run(e, Command{cmd::Undrain{"n3"}}));
    QCOMPARE(e.state().nodeState(n2.id), NodeState::Up);
    QCOMPARE(e.state().nodeState(n3.id), NodeState::Up);
  }

  // Stored and read back: each owner gets exactly its hold, with its sentence, GPU and time.
  void holdsSurviveTheDatabase() {
    Engine e = demoEngine();
    QVERIFY(e.advanceTo(500));
    const size_t declared = nodeHoldsToJson(e).size();  // the demo declares some nodes out
    const Node& a = upNode(e, 0);
    const Node& b = upNode(e, 1);
    QVERIFY(e.putNodeHold(
        a.id, hold(HoldOwner::GpuFault, phrase(text::kOutXid, 79, "x/1"), false, a.firstGpu + 1)));
    QVERIFY(e.putNodeHold(a.id, hold(HoldOwner::Operator, literal("psu"))));
    QVERIFY(e.putNodeHold(b.id, hold(HoldOwner::Failure, phrase(text::kOutNodeFailure), true)));
    const json stored = json::parse(nodeHoldsToJson(e).dump());
    QCOMPARE(stored.size(), declared + 2);
    QCOMPARE(stored[a.name]["state"].get<std::string>(), std::string("draining"));
    QCOMPARE(stored[a.name]["reason"].get<std::string>(), std::string("psu"));

    Engine back = demoEngine();
    QVERIFY(restoreNodeHolds(back, stored));
    for (const Node* n : {&a, &b}) {
      QCOMPARE(back.nodeHolds(n->id).all(), e.nodeHolds(n->id).all());
      QCOMPARE(back.state().nodeState(n->id), e.state().nodeState(n->id));
    }
    QVERIFY(!back.nodeHolds(b.id).all().front().reason.isLiteral());  // still translatable
    QCOMPARE(back.nodeHolds(a.id).all().front().since, Seconds{500});
  }

  // What databases from before holds hold: a state, or {state, reason}.
  void olderDatabasesAreRead() {
    Engine e = demoEngine();
    const Node& a = upNode(e, 0);
    const Node& b = upNode(e, 1);
    const json stored{{a.name, {{"state", "draining"}, {"reason", "psu"}}}, {b.name, "down"}};
    QVERIFY(restoreNodeHolds(e, stored));
    QVERIFY(e.nodeHolds(a.id).find(HoldOwner::Operator));
    QVERIFY(e.nodeReason(a.id) == literal("psu"));
    QVERIFY(e.nodeHolds(b.id).find(HoldOwner::Failure));
    QCOMPARE(e.state().nodeState(b.id), NodeState::Down);
  }

  void badStoredHoldsNameThePlace() {
    const std::string node = upNode(demoEngine(), 0).name;
    const std::vector<std::pair<json, std::string>> cases{
        {json{{node, {{"holds", json::array({{{"owner", "slurm"}}})}}}}, ".holds[0].owner"},
        {json{{node, {{"holds", json::array({{{"owner", "gpu-fault"}, {"gpu", "nope/9"}}})}}}},
         ".holds[0].gpu"},
        {json{{node, {{"holds", 5}}}}, ".holds is not a list"},
        {json{{node, {{"holds", json::array({{{"owner", "operator"}, {"reason", 5}}})}}}},
         ".holds[0].reason"},
        {json{{"no-such-node", "draining"}}, "unknown node 'no-such-node'"},
        {json{{node, "sleeping"}}, "is 'sleeping'"},
    };
    for (const auto& [stored, part] : cases) {
      Engine e = demoEngine();
      const Status st = restoreNodeHolds(e, stored);
      QVERIFY2(!st, stored.dump().c_str());
      QVERIFY2(st.error().message.find(part) != std::string::npos, st.error().message.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TstNodeHolds)
#include "tst_node_holds.moc"
