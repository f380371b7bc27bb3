// Topology queries on a loaded cluster: link classes inside a node (NVSwitch, derived PCIe/NUMA,
// nvidia-smi topo text, NVLink bridges), NVLink domain membership, leaf/spine lookups,
// commonLevel/spanOf across the fabric and findGpu. Small specs written here plus the demo.
#include <QtTest>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clusterspec/cluster_spec.h"
#include "clusterspec/node_template.h"
#include "topology/cluster.h"
#include "topology/links.h"
#include "topology/nvsmi_topo.h"

using namespace tessera;

namespace tessera {
// Lets QCOMPARE print link cells ("NV18", "PXB") and levels when a comparison fails.
char* toString(const GpuLink& l) {
  return qstrdup(l.str().c_str());
}
char* toString(const TopologyLevel& l) {
  return qstrdup(topologyLevelName(l));
}
}  // namespace tessera

namespace {

// Fabric:  spine-a <- leaf-1 (dgx-01, dgx-02), leaf-2 (pcie-01, pcie-02),
//                     rack-leaf-1 (rack-01, rack-02, side-1), rack-leaf-2 (rack-03, rack-04)
//          spine-b <- leaf-3 (br-1)
//          lone-1 (far-1), lone-2 (far-2): leafs without a spine
// NVLink:  dgx-0N/nvswitch (8 GPUs each), rack-nvl-1 (rack-01..04, 16 GPUs, crosses two leafs),
//          side-1/nvswitch, br-1/bridge0 {0,1}, br-1/bridge1 {2,3}; PCIe nodes have none.
const char* kSpec = R"(version: 1
name: topo-test
node_templates:
  dgx:
    gpu_model: H100-SXM5-80GB
    gpus: 8
    numa:
      - {gpus: [0, 1, 2, 3]}
      - {gpus: [4, 5, 6, 7]}
  pcie:
    gpu_model: L40S
    gpus: 4
    numa:
      - {cpus: "0-15", gpus: [0, 1, 2]}
      - {cpus: "16-31", gpus: [3]}
    pcie_switches:
      - {gpus: [0, 1]}
      - {gpus: [2]}
  bridged:
    gpu_model: A100-PCIE-40GB
    gpus: 4
    pcie_switches:
      - {gpus: [1, 2]}
    nvlink: {bridges: [[0, 1], [2, 3]]}
  tray:
    gpu_model: GB200
    gpus: 4
fabric:
  spines: [spine-a, spine-b]
  leafs:
    - {name: leaf-1, spine: spine-a}
    - {name: leaf-2, spine: spine-a}
    - {name: leaf-3, spine: spine-b}
    - {name: lone-1}
    - {name: lone-2}
groups:
  - {name: dgx, template: dgx, count: 2, leaf: leaf-1}
  - name: rack
    template: tray
    count: 4
    leafs: {count: 2, spine: spine-a}
    nvlink_rack: 4
  - {name: pcie, template: pcie, count: 2, leaf: leaf-2}
nodes:
  - {name: br-1, template: bridged, leaf: leaf-3}
  - {name: side-1, template: dgx, leaf: rack-leaf-1}
  - {name: far-1, template: pcie, leaf: lone-1}
  - {name: far-2, template: pcie, leaf: lone-2}
)";

std::shared_ptr<const Cluster> loadOrDie(std::string_view text) {
  auto r = loadClusterSpec(text, "topo-test.yaml");
  if (!r) qFatal("spec does not load: %s", r.error().str().c_str());
  return *r;
}

GpuLink nv(int links) {
  return GpuLink{LinkKind::NVLink, static_cast<uint8_t>(links)};
}
GpuLink link(LinkKind kind) {
  return GpuLink{kind, 0};
}

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

// GPU id by "node/index"; fails loudly when the GPU does not exist.
GpuId gid(const Cluster& c, const char* nodeAndIndex) {
  const Gpu* g = c.findGpu(nodeAndIndex);
  if (!g) qFatal("no GPU %s", nodeAndIndex);
  return g->id;
}

std::optional<GpuLink> linkOf(const Cluster& c, const char* a, const char* b) {
  return c.linkBetween(gid(c, a), gid(c, b));
}

std::string switchName(const Cluster& c, SwitchId id) {
  return id == kNone ? std::string("-") : c.switches()[static_cast<size_t>(id)].name;
}

QStringList childNames(const Cluster& c, const char* sw) {
  QStringList out;
  for (SwitchId id : c.findSwitch(sw)->children) out << qs(switchName(c, id));
  return out;
}

QStringList leafNodes(const Cluster& c, const char* sw) {
  QStringList out;
  for (NodeId id : c.findSwitch(sw)->nodes) out << qs(c.node(id).name);
  return out;
}

const NvlinkDomain* domainNamed(const Cluster& c, const std::string& name) {
  for (const auto& d : c.nvlinkDomains())
    if (d.name == name) return &d;
  return nullptr;
}

std::vector<GpuId> gpusOfNode(const Cluster& c, const char* node) {
  const Node* n = c.findNode(node);
  if (!n) qFatal("no node %s", node);
  std::vector<GpuId> out;
  for (int i = 0; i < n->gpuCount(); ++i) out.push_back(n->firstGpu + static_cast<GpuId>(i));
  return out;
}

std::vector<GpuId> ids(const Cluster& c, std::initializer_list<const char*> names) {
  std::vector<GpuId> out;
  for (const char* n : names) out.push_back(gid(c, n));
  return out;
}

}  // namespace

class TstTopology : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void nvswitchLinksWithinNode();
  void derivedPcieLinks();
  void demoL40sLinksFromTopo();
  void bridgedNvlinkPairs();
  void linksAreSymmetricWithSelfOnDiagonal();
  void noLinkAcrossNodes();
  void gpuToNicLinks();
  void topoNvlinkFollowsTheModel();
  void nvswitchDomainMembership();
  void rackDomainMembership();
  void bridgedDomainMembership();
  void leafAndSpineLookups();
  void demoFabricLookups();
  void commonLevelPairs();
  void spanOfSets();
  void spanOfChecksTheWholeSet();
  void demoLevels();
  void findGpuLookups();

 private:
  std::shared_ptr<const Cluster> c_;
  std::shared_ptr<const Cluster> demo_;
};

void TstTopology::initTestCase() {
  c_ = loadOrDie(kSpec);
  demo_ = loadOrDie(demoClusterYaml());
  QCOMPARE(c_->nodes().size(), size_t{12});
}

// ---------------------------------------------------------------------------------------------
// Links inside a node
// ---------------------------------------------------------------------------------------------

void TstTopology::nvswitchLinksWithinNode() {
  const Cluster& c = *c_;
  // H100 SXM5: 18 NVLinks per GPU, all-to-all through the NVSwitches, regardless of NUMA.
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      const std::string na = "dgx-01/" + std::to_string(a), nb = "dgx-01/" + std::to_string(b);
      QCOMPARE(linkOf(c, na.c_str(), nb.c_str()),
               std::optional<GpuLink>(a == b ? link(LinkKind::Self) : nv(18)));
    }
  QCOMPARE(linkOf(c, "dgx-02/3", "dgx-02/4")->str(), std::string("NV18"));
  // A GB200 tray: NVLink 5 with 18 links.
  QCOMPARE(*linkOf(c, "rack-03/0", "rack-03/3"), nv(18));
  // The demo's DGX H100 and A100 templates.
  QCOMPARE(*linkOf(*demo_, "pod-a-05/0", "pod-a-05/7"), nv(18));
  QCOMPARE(*linkOf(*demo_, "inf-02/1", "inf-02/6"), nv(12));
}

void TstTopology::derivedPcieLinks() {
  const Cluster& c = *c_;
  // pcie: NUMA {0,1,2} {3}; PCIe switches {0,1} {2}; no NVLink (L40S).
  QCOMPARE(*linkOf(c, "pcie-01/0", "pcie-01/1"), link(LinkKind::PIX));
  QCOMPARE(*linkOf(c, "pcie-01/0", "pcie-01/2"), link(LinkKind::NODE));
  QCOMPARE(*linkOf(c, "pcie-01/1", "pcie-01/2"), link(LinkKind::NODE));
  QCOMPARE(*linkOf(c, "pcie-01/0", "pcie-01/3"), link(LinkKind::SYS));
  QCOMPARE(*linkOf(c, "pcie-01/2", "pcie-01/3"), link(LinkKind::SYS));
  QCOMPARE(*linkOf(c, "far-2/1", "far-2/0"), link(LinkKind::PIX));
  const Node& n = *c.findNode("pcie-02");
  QCOMPARE(n.hw->nvlink, NvlinkMode::None);
  QCOMPARE(n.hw->gpuPcieSwitch, (std::vector<int>{0, 0, 1, kNone}));
  QCOMPARE(n.hw->gpuNuma, (std::vector<int>{0, 0, 0, 1}));
  QCOMPARE(n.hw->numa[1].cpus.size(), size_t{16});
}

void TstTopology::demoL40sLinksFromTopo() {
  const Cluster& c = *demo_;
  QCOMPARE(*linkOf(c, "dev-l40s-01/0", "dev-l40s-01/1"), link(LinkKind::PIX));
  QCOMPARE(*linkOf(c, "dev-l40s-01/0", "dev-l40s-01/2"), link(LinkKind::NODE));
  QCOMPARE(*linkOf(c, "dev-l40s-01/0", "dev-l40s-01/4"), link(LinkKind::SYS));
  QCOMPARE(*linkOf(c, "dev-l40s-02/6", "dev-l40s-02/7"), link(LinkKind::PIX));
  QCOMPARE(*linkOf(c, "dev-l40s-02/5", "dev-l40s-02/7"), link(LinkKind::NODE));
  QCOMPARE(*linkOf(c, "dev-l40s-02/3", "dev-l40s-02/7"), link(LinkKind::SYS));
  const NodeHardware& hw = *c.findNode("dev-l40s-01")->hw;
  QCOMPARE(hw.nvlink, NvlinkMode::None);
  QCOMPARE(hw.gpuNuma, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  QCOMPARE(hw.nics.size(), size_t{2});
  // The L4 template: one shared PCIe switch, default single NUMA zone.
  QCOMPARE(*linkOf(c, "dev-l4-03/0", "dev-l4-03/3"), link(LinkKind::PIX));
}

void TstTopology::bridgedNvlinkPairs() {
  const Cluster& c = *c_;
  // A100 PCIe: 12 NVLinks over each bridge; PCIe switch {1,2}; one NUMA zone.
  QCOMPARE(*linkOf(c, "br-1/0", "br-1/1"), nv(12));
  QCOMPARE(*linkOf(c, "br-1/3", "br-1/2"), nv(12));
  QCOMPARE(*linkOf(c, "br-1/1", "br-1/2"), link(LinkKind::PIX));
  QCOMPARE(*linkOf(c, "br-1/0", "br-1/2"), link(LinkKind::NODE));
  QCOMPARE(*linkOf(c, "br-1/0", "br-1/3"), link(LinkKind::NODE));
  QCOMPARE(*linkOf(c, "br-1/1", "br-1/3"), link(LinkKind::NODE));
  const NodeHardware& hw = *c.findNode("br-1")->hw;
  QCOMPARE(hw.nvlink, NvlinkMode::Bridged);
  QCOMPARE(hw.nvlinkGroups, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
}

void TstTopology::linksAreSymmetricWithSelfOnDiagonal() {
  for (const auto* cluster : {c_.get(), demo_.get()}) {
    const Cluster& c = *cluster;
    int pairs = 0;
    for (const auto& n : c.nodes())
      for (GpuId a : gpusOfNode(c, n.name.c_str()))
        for (GpuId b : gpusOfNode(c, n.name.c_str())) {
          const auto ab = c.linkBetween(a, b);
          QVERIFY(ab.has_value());
          QCOMPARE(*ab, *c.linkBetween(b, a));
          QCOMPARE(ab->kind == LinkKind::Self, a == b);
          ++pairs;
        }
    QVERIFY(pairs > 0);
  }
}

void TstTopology::noLinkAcrossNodes() {
  const Cluster& c = *c_;
  QCOMPARE(linkOf(c, "dgx-01/0", "dgx-02/0"), std::optional<GpuLink>());
  QCOMPARE(linkOf(c, "pcie-01/0", "pcie-02/0"), std::optional<GpuLink>());
  // Different nodes of one multi-node NVLink rack talk over NVLink (the rack's NVSwitch trays).
  QCOMPARE(*linkOf(c, "rack-01/0", "rack-02/0"), nv(18));
  QCOMPARE(*linkOf(c, "rack-01/0", "rack-04/3"), nv(18));  // across the two leafs of the rack
  QCOMPARE(*linkOf(*demo_, "nvl72-01/0", "nvl72-18/3"), nv(18));
  // A rack node and a plain node on the same leaf: network only.
  QCOMPARE(linkOf(c, "rack-01/0", "side-1/0"), std::optional<GpuLink>());
  QVERIFY(linkOf(c, "rack-01/0", "rack-01/1").has_value());
}

void TstTopology::gpuToNicLinks() {
  // Demo DGX H100: each GPU shares a PCIe switch with its own NIC (mlx5_0 for GPU0, NUMA 0).
  const Node& dgx = *demo_->findNode("pod-a-01");
  const NodeHardware& hw = *dgx.hw;
  QCOMPARE(hw.nics[0].name, std::string("mlx5_0"));
  QCOMPARE(hw.nicLink(0, 0), link(LinkKind::PIX));
  QCOMPARE(hw.nicLink(0, 1), link(LinkKind::NODE));  // mlx5_3: same NUMA zone, other switch
  QCOMPARE(hw.nicLink(0, 4), link(LinkKind::SYS));   // mlx5_6: other socket
  QCOMPARE(hw.nicLink(5, 5), link(LinkKind::PIX));
  // Demo L40S node from topo text (reference example B): NIC0 on GPU0/1's switch, NIC1 on GPU4/5's.
  const NodeHardware& pcie = *demo_->findNode("dev-l40s-01")->hw;
  QCOMPARE(pcie.nicLink(0, 0), link(LinkKind::PIX));
  QCOMPARE(pcie.nicLink(2, 0), link(LinkKind::NODE));
  QCOMPARE(pcie.nicLink(0, 1), link(LinkKind::SYS));
  QCOMPARE(pcie.nicLink(5, 1), link(LinkKind::PIX));
}

// All-NV# topo output is an NVSwitch board only on a baseboard model; a bridged PCIe pair (H100
// NVL) stays a bridge, and a model without NVLink is refused.
void TstTopology::topoNvlinkFollowsTheModel() {
  const std::string pair =
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tNV12\t0-31\t0\n"
      "GPU1\tNV12\t X \t0-31\t0\n";
  auto topo = parseNvidiaSmiTopo(pair, "pair.txt");
  QVERIFY2(topo.ok(), topo.ok() ? "" : topo.error().str().c_str());
  auto nvl = hardwareFromTopo(*topo, GpuCatalog::builtin().findShared("H100-NVL"), "nvl2");
  QVERIFY(nvl.ok());
  QCOMPARE(int((*nvl)->nvlink), int(NvlinkMode::Bridged));
  QCOMPARE((*nvl)->nvlinkGroups, (std::vector<std::vector<int>>{{0, 1}}));
  auto sxm = hardwareFromTopo(*topo, GpuCatalog::builtin().findShared("H100"), "sxm2");
  QVERIFY(sxm.ok());
  QCOMPARE(int((*sxm)->nvlink), int(NvlinkMode::NvSwitch));
  auto l40s = hardwareFromTopo(*topo, GpuCatalog::builtin().findShared("L40S"), "bad");
  QVERIFY(!l40s.ok());
  QVERIFY(QString::fromStdString(l40s.error().message).contains("has none"));
}

// ---------------------------------------------------------------------------------------------
// NVLink domains
// ---------------------------------------------------------------------------------------------

void TstTopology::nvswitchDomainMembership() {
  const Cluster& c = *c_;
  for (const char* node : {"dgx-01", "dgx-02", "side-1"}) {
    const NvlinkDomain* d = domainNamed(c, std::string(node) + "/nvswitch");
    QVERIFY2(d, node);
    QCOMPARE(d->kind, NvlinkDomainKind::NvSwitchBoard);
    QCOMPARE(d->gpus, gpusOfNode(c, node));
    QCOMPARE(d->nodes, (std::vector<NodeId>{c.findNode(node)->id}));
    for (GpuId g : gpusOfNode(c, node)) QCOMPARE(c.gpu(g).nvlinkDomain, d->id);
  }
  // GPUs without NVLink belong to no domain.
  for (const char* node : {"pcie-01", "far-1"})
    for (GpuId g : gpusOfNode(c, node)) QCOMPARE(c.gpu(g).nvlinkDomain, kNone);
  // 2 DGX boards + side-1 + 1 rack + 2 bridges.
  QCOMPARE(c.nvlinkDomains().size(), size_t{6});

  const NvlinkDomain* demoBoard = domainNamed(*demo_, "pod-b-04/nvswitch");
  QVERIFY(demoBoard);
  QCOMPARE(demoBoard->gpus, gpusOfNode(*demo_, "pod-b-04"));
}

void TstTopology::rackDomainMembership() {
  {
    const Cluster& c = *c_;
    const NvlinkDomain* d = domainNamed(c, "rack-nvl-1");
    QVERIFY(d);
    QCOMPARE(d->kind, NvlinkDomainKind::MultiNodeRack);
    std::vector<GpuId> expected;
    std::vector<NodeId> nodes;
    for (const char* n : {"rack-01", "rack-02", "rack-03", "rack-04"}) {
      for (GpuId g : gpusOfNode(c, n)) expected.push_back(g);
      nodes.push_back(c.findNode(n)->id);
    }
    QCOMPARE(d->gpus, expected);
    QCOMPARE(d->nodes, nodes);
    QVERIFY(!domainNamed(c, "rack-01/nvswitch"));  // the rack replaces the per-tray boards
  }
  const Cluster& c = *demo_;
  const NvlinkDomain* d = domainNamed(c, "nvl72-nvl-1");
  QVERIFY(d);
  QCOMPARE(d->kind, NvlinkDomainKind::MultiNodeRack);
  QCOMPARE(d->gpus.size(), size_t{72});
  QCOMPARE(d->nodes.size(), size_t{18});
  std::vector<GpuId> expected;
  for (int i = 1; i <= 18; ++i) {
    const std::string name = (i < 10 ? "nvl72-0" : "nvl72-") + std::to_string(i);
    QCOMPARE(qs(c.node(d->nodes[static_cast<size_t>(i - 1)]).name), qs(name));
    for (GpuId g : gpusOfNode(c, name.c_str())) {
      expected.push_back(g);
      QCOMPARE(c.gpu(g).nvlinkDomain, d->id);
    }
  }
  QCOMPARE(d->gpus, expected);
  // No other domain holds a GB200 GPU.
  for (const auto& other : c.nvlinkDomains())
    if (other.id != d->id)
      for (GpuId g : other.gpus) QVERIFY(c.modelOf(g).id != "GB200");
}

void TstTopology::bridgedDomainMembership() {
  const Cluster& c = *c_;
  const Node& n = *c.findNode("br-1");
  const NvlinkDomain* b0 = domainNamed(c, "br-1/bridge0");
  const NvlinkDomain* b1 = domainNamed(c, "br-1/bridge1");
  QVERIFY(b0);
  QVERIFY(b1);
  QCOMPARE(b0->kind, NvlinkDomainKind::Bridge);
  QCOMPARE(b1->kind, NvlinkDomainKind::Bridge);
  QCOMPARE(b0->gpus, (std::vector<GpuId>{n.firstGpu, n.firstGpu + 1}));
  QCOMPARE(b1->gpus, (std::vector<GpuId>{n.firstGpu + 2, n.firstGpu + 3}));
  QCOMPARE(b0->nodes, (std::vector<NodeId>{n.id}));
  QCOMPARE(c.gpu(gid(c, "br-1/1")).nvlinkDomain, b0->id);
  QCOMPARE(c.gpu(gid(c, "br-1/2")).nvlinkDomain, b1->id);
}

// ---------------------------------------------------------------------------------------------
// Fabric
// ---------------------------------------------------------------------------------------------

void TstTopology::leafAndSpineLookups() {
  const Cluster& c = *c_;
  const FabricSwitch* spineA = c.findSwitch("spine-a");
  const FabricSwitch* leaf1 = c.findSwitch("leaf-1");
  QVERIFY(spineA);
  QVERIFY(leaf1);
  QCOMPARE(spineA->tier, SwitchTier::Spine);
  QCOMPARE(spineA->parent, kNone);
  QVERIFY(spineA->nodes.empty());
  QCOMPARE(leaf1->tier, SwitchTier::Leaf);
  QCOMPARE(leaf1->parent, spineA->id);
  QVERIFY(leaf1->children.empty());
  QVERIFY(!c.findSwitch("leaf-4"));
  QVERIFY(!c.findSwitch(""));
  QCOMPARE(qs(c.switches()[static_cast<size_t>(leaf1->id)].name), QStringLiteral("leaf-1"));

  QCOMPARE(childNames(c, "spine-a"),
           (QStringList{"leaf-1", "leaf-2", "rack-leaf-1", "rack-leaf-2"}));
  QCOMPARE(childNames(c, "spine-b"), QStringList{"leaf-3"});
  QCOMPARE(leafNodes(c, "leaf-1"), (QStringList{"dgx-01", "dgx-02"}));
  QCOMPARE(leafNodes(c, "rack-leaf-1"), (QStringList{"rack-01", "rack-02", "side-1"}));
  QCOMPARE(leafNodes(c, "rack-leaf-2"), (QStringList{"rack-03", "rack-04"}));
  QCOMPARE(leafNodes(c, "leaf-3"), QStringList{"br-1"});
  QCOMPARE(leafNodes(c, "lone-2"), QStringList{"far-2"});

  auto leafOf = [&](const char* node) { return qs(switchName(c, c.leafOf(c.findNode(node)->id))); };
  auto spineOf = [&](const char* node) {
    return qs(switchName(c, c.spineOf(c.findNode(node)->id)));
  };
  QCOMPARE(leafOf("dgx-02"), QStringLiteral("leaf-1"));
  QCOMPARE(spineOf("dgx-02"), QStringLiteral("spine-a"));
  QCOMPARE(leafOf("rack-02"), QStringLiteral("rack-leaf-1"));
  QCOMPARE(leafOf("rack-03"), QStringLiteral("rack-leaf-2"));
  QCOMPARE(spineOf("rack-04"), QStringLiteral("spine-a"));
  QCOMPARE(leafOf("br-1"), QStringLiteral("leaf-3"));
  QCOMPARE(spineOf("br-1"), QStringLiteral("spine-b"));
  QCOMPARE(leafOf("far-1"), QStringLiteral("lone-1"));
  QCOMPARE(c.spineOf(c.findNode("far-1")->id), kNone);
  // Every node appears in exactly its leaf's node list.
  for (const auto& n : c.nodes()) {
    int listed = 0;
    for (const auto& sw : c.switches())
      for (NodeId id : sw.nodes)
        if (id == n.id) {
          ++listed;
          QCOMPARE(sw.id, n.leaf);
        }
    QCOMPARE(listed, 1);
  }
}

void TstTopology::demoFabricLookups() {
  const Cluster& c = *demo_;
  QCOMPARE(childNames(c, "spine-1"),
           (QStringList{"pod-a-leaf-1", "pod-a-leaf-2", "pod-b-leaf-1", "pod-b-leaf-2"}));
  QCOMPARE(childNames(c, "spine-2"), (QStringList{"leaf-nvl", "leaf-inf", "leaf-dev"}));
  QCOMPARE(qs(switchName(c, c.leafOf(c.findNode("pod-a-08")->id))), QStringLiteral("pod-a-leaf-1"));
  QCOMPARE(qs(switchName(c, c.leafOf(c.findNode("pod-a-09")->id))), QStringLiteral("pod-a-leaf-2"));
  QCOMPARE(qs(switchName(c, c.spineOf(c.findNode("pod-b-07")->id))), QStringLiteral("spine-1"));
  QCOMPARE(qs(switchName(c, c.spineOf(c.findNode("dev-l4-02")->id))), QStringLiteral("spine-2"));
  QCOMPARE(c.findSwitch("leaf-nvl")->nodes.size(), size_t{18});
  QCOMPARE(c.findSwitch("leaf-inf")->nodes.size(), size_t{6});
}

// ---------------------------------------------------------------------------------------------
// Levels
// ---------------------------------------------------------------------------------------------

void TstTopology::commonLevelPairs() {
  const Cluster& c = *c_;
  struct Case {
    const char* a;
    const char* b;
    TopologyLevel level;
  };
  const std::vector<Case> cases{
      {"dgx-01/3", "dgx-01/3", TopologyLevel::Gpu},
      {"dgx-01/0", "dgx-01/7", TopologyLevel::Node},
      {"br-1/0", "br-1/3", TopologyLevel::Node},  // different bridges, same node
      {"far-1/0", "far-1/3", TopologyLevel::Node},
      {"rack-01/0", "rack-02/3", TopologyLevel::NvlinkDomain},
      {"rack-01/0", "rack-04/3", TopologyLevel::NvlinkDomain},  // rack crosses two leafs
      {"dgx-01/0", "dgx-02/0", TopologyLevel::Leaf},            // separate NVSwitch boards
      {"pcie-01/0", "pcie-02/0", TopologyLevel::Leaf},          // no NVLink at all
      {"rack-02/1", "side-1/5", TopologyLevel::Leaf},
      {"dgx-01/0", "pcie-01/0", TopologyLevel::Spine},
      {"rack-03/0", "side-1/0", TopologyLevel::Spine},
      {"dgx-01/0", "rack-01/0", TopologyLevel::Spine},
      {"dgx-01/0", "br-1/0", TopologyLevel::Cluster},    // spine-a vs spine-b
      {"far-1/0", "far-2/0", TopologyLevel::Cluster},    // leafs without a spine
      {"far-1/0", "pcie-01/0", TopologyLevel::Cluster},  // one side has no spine
  };
  for (const auto& k : cases) {
    const QByteArray what = QByteArray(k.a) + " ~ " + k.b;
    QVERIFY2(
        c.commonLevel(gid(c, k.a), gid(c, k.b)) == k.level,
        (what + ": got " + topologyLevelName(c.commonLevel(gid(c, k.a), gid(c, k.b)))).constData());
    QVERIFY2(c.commonLevel(gid(c, k.b), gid(c, k.a)) == k.level,
             (what + " (reversed)").constData());
    // A pair spans what the pair has in common.
    QVERIFY2(c.spanOf({gid(c, k.a), gid(c, k.b)}) == k.level, (what + " (spanOf)").constData());
  }
}

void TstTopology::spanOfSets() {
  const Cluster& c = *c_;
  QCOMPARE(c.spanOf(ids(c, {"dgx-02/5"})), TopologyLevel::Gpu);
  QCOMPARE(c.spanOf(ids(c, {"dgx-02/5", "dgx-02/5"})), TopologyLevel::Gpu);
  QCOMPARE(c.spanOf(gpusOfNode(c, "dgx-01")), TopologyLevel::Node);
  QCOMPARE(c.spanOf(ids(c, {"dgx-01/0", "dgx-01/1", "dgx-01/1"})), TopologyLevel::Node);
  QCOMPARE(
      c.spanOf(
          c.nvlinkDomains()[static_cast<size_t>(c.gpu(gid(c, "rack-01/0")).nvlinkDomain)].gpus),
      TopologyLevel::NvlinkDomain);
  QCOMPARE(c.spanOf(ids(c, {"rack-01/0", "rack-02/0", "rack-03/0", "rack-04/0"})),
           TopologyLevel::NvlinkDomain);
  QCOMPARE(c.spanOf(ids(c, {"dgx-01/0", "dgx-01/1", "dgx-02/0"})), TopologyLevel::Leaf);
  QCOMPARE(c.spanOf(ids(c, {"rack-01/0", "rack-02/0", "side-1/0"})), TopologyLevel::Leaf);
  QCOMPARE(c.spanOf(ids(c, {"dgx-01/0", "pcie-01/0", "rack-04/2"})), TopologyLevel::Spine);
  QCOMPARE(c.spanOf(ids(c, {"dgx-01/0", "pcie-01/0", "br-1/0"})), TopologyLevel::Cluster);
  QCOMPARE(c.spanOf(ids(c, {"far-1/0", "far-2/0"})), TopologyLevel::Cluster);
  QCOMPARE(c.spanOf(ids(c, {"far-1/0", "far-1/2"})), TopologyLevel::Node);
}

// The rack spans rack-leaf-1 and rack-leaf-2. Pairwise, rack-01 ~ rack-03 is NvlinkDomain and
// rack-01 ~ side-1 is Leaf, but no leaf holds all three: the set spans spine-a.
void TstTopology::spanOfChecksTheWholeSet() {
  const Cluster& c = *c_;
  QCOMPARE(c.commonLevel(gid(c, "rack-01/0"), gid(c, "rack-03/0")), TopologyLevel::NvlinkDomain);
  QCOMPARE(c.commonLevel(gid(c, "rack-01/0"), gid(c, "side-1/0")), TopologyLevel::Leaf);
  QCOMPARE(c.spanOf(ids(c, {"rack-01/0", "rack-03/0", "side-1/0"})), TopologyLevel::Spine);
  QCOMPARE(c.spanOf(ids(c, {"side-1/0", "rack-01/0", "rack-03/0"})), TopologyLevel::Spine);
  QCOMPARE(c.spanOf(ids(c, {"rack-03/0", "rack-01/0", "side-1/0"})), TopologyLevel::Spine);
  QCOMPARE(c.spanOf(ids(c, {"rack-01/0", "side-1/0", "rack-03/0"})), TopologyLevel::Spine);
  // Adding a GPU from the other spine widens the set to the cluster.
  QCOMPARE(c.spanOf(ids(c, {"rack-01/0", "rack-03/0", "side-1/0", "br-1/0"})),
           TopologyLevel::Cluster);
}

void TstTopology::demoLevels() {
  const Cluster& c = *demo_;
  std::vector<GpuId> rack;
  for (const auto& g : c.gpus())
    if (c.modelOf(g.id).id == "GB200") rack.push_back(g.id);
  QCOMPARE(rack.size(), size_t{72});
  QCOMPARE(c.spanOf(rack), TopologyLevel::NvlinkDomain);
  QCOMPARE(c.commonLevel(gid(c, "nvl72-01/0"), gid(c, "nvl72-18/3")), TopologyLevel::NvlinkDomain);
  QCOMPARE(c.commonLevel(gid(c, "pod-a-01/0"), gid(c, "pod-a-08/7")), TopologyLevel::Leaf);
  QCOMPARE(c.commonLevel(gid(c, "pod-a-01/0"), gid(c, "pod-a-09/0")), TopologyLevel::Spine);
  QCOMPARE(c.commonLevel(gid(c, "pod-a-01/0"), gid(c, "pod-b-01/0")), TopologyLevel::Spine);
  QCOMPARE(c.commonLevel(gid(c, "inf-01/0"), gid(c, "dev-l4-01/0")), TopologyLevel::Spine);
  QCOMPARE(c.commonLevel(gid(c, "dev-l40s-01/0"), gid(c, "dev-l4-01/0")), TopologyLevel::Leaf);
  QCOMPARE(c.commonLevel(gid(c, "pod-a-01/0"), gid(c, "nvl72-01/0")), TopologyLevel::Cluster);
  QCOMPARE(c.spanOf(ids(c, {"pod-a-01/0", "pod-a-16/0", "pod-b-12/7"})), TopologyLevel::Spine);
  QCOMPARE(c.spanOf(ids(c, {"nvl72-03/0", "inf-01/0", "dev-l4-08/3"})), TopologyLevel::Spine);
}

void TstTopology::findGpuLookups() {
  const Cluster& c = *c_;
  const Gpu* g = c.findGpu("dgx-02/3");
  QVERIFY(g);
  QCOMPARE(g->index, 3);
  QCOMPARE(qs(c.node(g->node).name), QStringLiteral("dgx-02"));
  QCOMPARE(g->id, c.findNode("dgx-02")->firstGpu + 3);
  QCOMPARE(c.findGpu("dgx-02/0")->id, c.findNode("dgx-02")->firstGpu);
  QCOMPARE(c.findGpu("dgx-02/7")->index, 7);
  QCOMPARE(c.findGpu("far-2/3")->id, static_cast<GpuId>(c.gpus().size() - 1));
  QCOMPARE(qs(demo_->node(demo_->findGpu("nvl72-18/3")->node).name), QStringLiteral("nvl72-18"));

  for (const char* bad : {"dgx-02/8", "dgx-02/-1", "dgx-02/", "dgx-02", "/3", "", "nosuch/0",
                          "dgx-02/x", "dgx-02/3/", "dgx-0/3", "br-1/4", "dgx-02/3x"})
    QVERIFY2(c.findGpu(bad) == nullptr, bad);
}

QTEST_APPLESS_MAIN(TstTopology)
#include "tst_topology.moc"
