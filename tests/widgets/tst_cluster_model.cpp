// Item models of the console: ClusterTreeModel (spine -> leaf -> node -> GPU) and NodeLinksModel
// (a node's GPU link matrix). Both run under QAbstractItemModelTester through resets; the
// expected rows and texts are computed from the Cluster value (or written out for a tiny inline
// spec), never read back from the model under test.
#include <QAbstractItemModelTester>
#include <QColor>
#include <QSignalSpy>
#include <QtTest>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "../scheduler/mps_spec.h"
#include "cluster_tree_model.h"
#include "clusterspec/cluster_spec.h"
#include "node_links_model.h"

using namespace tessera;
using tessera::widgets::ClusterTreeModel;
using tessera::widgets::NodeLinksModel;
using Kind = ClusterTreeModel::Kind;

namespace {

// 2 nodes under 1 leaf under 1 spine: an A30 with MIG and a draining 2 x H100 NVSwitch board.
const char* kTinySpec = R"(version: 1
name: tiny
node_templates:
  a30:
    gpu_model: A30
    gpus: 1
  h100x2:
    gpu_model: H100
    gpus: 2
fabric:
  spines: [sp]
  leafs:
    - {name: lf, spine: sp}
nodes:
  - {name: n1, template: a30, leaf: lf, pool: inf, gpus: {"0": {mig: "2g.12gb@0,1g.6gb@2,1g.6gb@3"}}}
  - {name: n2, template: h100x2, leaf: lf, pool: train, state: draining, gpus: {"1": {timeslice: 4}}}
)";

// A spine with one leaf, plus a leaf hanging off no spine (it must show at top level).
const char* kOrphanLeafSpec = R"(version: 1
name: orphan
node_templates:
  l4:
    gpu_model: L4
    gpus: 1
fabric:
  spines: [sp]
  leafs:
    - {name: lf, spine: sp}
    - {name: lone}
nodes:
  - {name: a1, template: l4, leaf: lf}
  - {name: b1, template: l4, leaf: lone}
  - {name: b2, template: l4, leaf: lone}
)";

std::shared_ptr<const Cluster> load(const char* yaml, const char* name) {
  auto c = loadClusterSpec(yaml, name);
  if (!c) qFatal("%s: %s", name, c.error().str().c_str());
  return *c;
}

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QString text(const QAbstractItemModel& m, const QModelIndex& parent, int row, int column) {
  return m.data(m.index(row, column, parent)).toString();
}

// One line per item, indented by depth, every column's display text joined by " | ".
QString dump(const QAbstractItemModel& m, const QModelIndex& parent = {}, int depth = 0) {
  QString out;
  for (int r = 0; r < m.rowCount(parent); ++r) {
    QStringList cells;
    for (int c = 0; c < m.columnCount(parent); ++c) cells << text(m, parent, r, c);
    out += QString(depth * 2, QLatin1Char(' ')) + cells.join(QStringLiteral(" | ")) +
           QLatin1Char('\n');
    out += dump(m, m.index(r, 0, parent), depth + 1);
  }
  return out;
}

// Index (column 0) of a node row, found by walking the tree from the top.
QModelIndex findNodeIndex(const QAbstractItemModel& m, const QString& name,
                          const QModelIndex& parent = {}) {
  for (int r = 0; r < m.rowCount(parent); ++r) {
    const QModelIndex i = m.index(r, 0, parent);
    if (m.data(i, ClusterTreeModel::KindRole).toInt() == static_cast<int>(Kind::Node)) {
      if (i.data().toString() == name) return i;
      continue;
    }
    if (QModelIndex found = findNodeIndex(m, name, i); found.isValid()) return found;
  }
  return {};
}

int gpusUnder(const Cluster& c, const FabricSwitch& sw) {
  int n = 0;
  for (NodeId id : sw.nodes) n += c.node(id).gpuCount();
  for (SwitchId child : sw.children) n += gpusUnder(c, c.switches()[static_cast<size_t>(child)]);
  return n;
}

}  // namespace

class TstClusterModel : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    demo_ = demoCluster();
    QVERIFY(demo_);
  }

  // ---- model consistency under resets -------------------------------------------------------

  void treeModelTester() {
    ClusterTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QCOMPARE(model.rowCount(), 0);  // no cluster yet
    model.setCluster(demo_);
    QVERIFY(model.rowCount() > 0);
    model.setCluster(demo_);  // same cluster again
    model.setCluster(load(kTinySpec, "tiny.yaml"));
    QCOMPARE(model.rowCount(), 1);
    model.setCluster(load(kOrphanLeafSpec, "orphan.yaml"));
    QCOMPARE(model.rowCount(), 2);
    model.setCluster(nullptr);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.data(model.index(0, 0)).isValid());
    QCOMPARE(resets.count(), 5);
  }

  void linksModelTester() {
    NodeLinksModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QCOMPARE(model.rowCount(), 0);
    model.setNode(demo_->findNode("pod-a-01")->hw);
    QCOMPARE(model.rowCount(), 8);
    model.setNode(demo_->findNode("dev-l4-01")->hw);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), 4);
    model.setNode(nullptr);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), 0);
    QVERIFY(!model.headerData(0, Qt::Horizontal).isValid());
    QCOMPARE(resets.count(), 3);
  }

  // ---- ClusterTreeModel on the demo cluster -------------------------------------------------

  void demoTopLevelIsSpines() {
    ClusterTreeModel model;
    model.setCluster(demo_);
    std::vector<const FabricSwitch*> spines;
    for (const auto& sw : demo_->switches()) {
      if (sw.tier == SwitchTier::Spine)
        spines.push_back(&sw);
      else
        QVERIFY2(sw.parent != kNone, sw.name.c_str());  // every demo leaf has a spine
    }
    QCOMPARE(spines.size(), size_t{2});
    QCOMPARE(model.rowCount(), 2);
    for (int r = 0; r < model.rowCount(); ++r) {
      const FabricSwitch& sw = *spines[static_cast<size_t>(r)];
      const QModelIndex i = model.index(r, 0);
      QCOMPARE(i.data().toString(), qs(sw.name));
      QCOMPARE(i.data(ClusterTreeModel::KindRole).toInt(), static_cast<int>(Kind::Spine));
      QCOMPARE(i.data(ClusterTreeModel::IdRole).toUInt(), static_cast<uint>(sw.id));
      QVERIFY(!model.parent(i).isValid());
      QCOMPARE(text(model, {}, r, ClusterTreeModel::Gpus).toInt(), gpusUnder(*demo_, sw));
      QCOMPARE(text(model, {}, r, ClusterTreeModel::Detail),
               QStringLiteral("spine, %1 leafs").arg(sw.children.size()));
      // Children of a spine: its leafs, in order.
      QCOMPARE(model.rowCount(i), static_cast<int>(sw.children.size()));
      for (int k = 0; k < model.rowCount(i); ++k) {
        const FabricSwitch& leaf =
            demo_->switches()[static_cast<size_t>(sw.children[static_cast<size_t>(k)])];
        const QModelIndex li = model.index(k, 0, i);
        QCOMPARE(li.data().toString(), qs(leaf.name));
        QCOMPARE(li.data(ClusterTreeModel::KindRole).toInt(), static_cast<int>(Kind::Leaf));
        QCOMPARE(li.data(ClusterTreeModel::IdRole).toUInt(), static_cast<uint>(leaf.id));
        QCOMPARE(model.parent(li), i);
      }
    }
    QCOMPARE(text(model, {}, 0, ClusterTreeModel::Name), QStringLiteral("spine-1"));
    QCOMPARE(text(model, {}, 0, ClusterTreeModel::Gpus),
             QStringLiteral("224"));  // pod-a 128 + pod-b 96
    QCOMPARE(text(model, {}, 1, ClusterTreeModel::Gpus),
             QStringLiteral("168"));  // nvl 72 + inf 48 + dev 48
  }

  void demoEveryNodeAndGpuOnce() {
    ClusterTreeModel model;
    model.setCluster(demo_);
    std::set<uint> nodesSeen, gpusSeen;
    for (int s = 0; s < model.rowCount(); ++s) {
      const QModelIndex spine = model.index(s, 0);
      for (int l = 0; l < model.rowCount(spine); ++l) {
        const QModelIndex leafIndex = model.index(l, 0, spine);
        const FabricSwitch& leaf =
            demo_->switches()[leafIndex.data(ClusterTreeModel::IdRole).toUInt()];
        QCOMPARE(model.rowCount(leafIndex), static_cast<int>(leaf.nodes.size()));
        QCOMPARE(text(model, spine, l, ClusterTreeModel::Detail),
                 QStringLiteral("leaf, %1 nodes").arg(leaf.nodes.size()));
        for (int n = 0; n < model.rowCount(leafIndex); ++n) {
          const QModelIndex ni = model.index(n, 0, leafIndex);
          const Node& node = demo_->node(leaf.nodes[static_cast<size_t>(n)]);
          QCOMPARE(ni.data(ClusterTreeModel::KindRole).toInt(), static_cast<int>(Kind::Node));
          QCOMPARE(ni.data(ClusterTreeModel::IdRole).toUInt(), static_cast<uint>(node.id));
          QCOMPARE(ni.data().toString(), qs(node.name));
          QCOMPARE(model.parent(ni), leafIndex);
          QVERIFY(nodesSeen.insert(node.id).second);
          QCOMPARE(model.rowCount(ni), node.gpuCount());
          for (int g = 0; g < model.rowCount(ni); ++g) {
            const QModelIndex gi = model.index(g, 0, ni);
            const GpuId id = node.firstGpu + static_cast<GpuId>(g);
            QCOMPARE(gi.data(ClusterTreeModel::KindRole).toInt(), static_cast<int>(Kind::Gpu));
            QCOMPARE(gi.data(ClusterTreeModel::IdRole).toUInt(), static_cast<uint>(id));
            QCOMPARE(gi.data().toString(), QStringLiteral("GPU%1").arg(g));
            QCOMPARE(model.rowCount(gi), 0);
            QCOMPARE(model.parent(gi), ni);
            QVERIFY(gpusSeen.insert(id).second);
          }
        }
      }
    }
    QCOMPARE(nodesSeen.size(), demo_->nodes().size());
    QCOMPARE(gpusSeen.size(), demo_->gpus().size());
    QCOMPARE(gpusSeen.size(), size_t{392});
  }

  void demoNodeTexts_data() {
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("pool");
    QTest::addColumn<QString>("detail");
    // resources/demo-cluster.yaml: groups and overrides.
    QTest::newRow("pod-a-07 draining") << "pod-a-07"
                                       << "H100-SXM5-80GB" << 8 << "draining"
                                       << "training"
                                       << "template dgx-h100";
    QTest::newRow("pod-b-12 down") << "pod-b-12"
                                   << "H200-SXM-141GB" << 8 << "down"
                                   << "training"
                                   << "template hgx-h200";
    QTest::newRow("nvl72-01") << "nvl72-01"
                              << "GB200" << 4 << "up"
                              << "training"
                              << "template gb200-tray";
    QTest::newRow("inf-01") << "inf-01"
                            << "A100-SXM4-80GB" << 8 << "up"
                            << "inference"
                            << "template hgx-a100-80";
    QTest::newRow("dev-l4-08") << "dev-l4-08"
                               << "L4" << 4 << "up"
                               << "dev"
                               << "template l4-pcie-4";
  }

  void demoNodeTexts() {
    QFETCH(QString, node);
    QFETCH(QString, model);
    QFETCH(int, gpus);
    QFETCH(QString, state);
    QFETCH(QString, pool);
    QFETCH(QString, detail);
    ClusterTreeModel tree;
    tree.setCluster(demo_);
    const QModelIndex i = findNodeIndex(tree, node);
    QVERIFY2(i.isValid(), qPrintable(node));
    const Node* n = demo_->findNode(node.toStdString());
    QVERIFY(n);
    // Independent of the literal rows above: the Cluster value agrees with them.
    QCOMPARE(qs(n->gpuModel().id), model);
    QCOMPARE(QString::fromLatin1(nodeStateName(n->state)), state);
    const QModelIndex parent = i.parent();
    const int r = i.row();
    QCOMPARE(text(tree, parent, r, ClusterTreeModel::Name), node);
    QCOMPARE(text(tree, parent, r, ClusterTreeModel::Model), model);
    QCOMPARE(tree.data(tree.index(r, ClusterTreeModel::Gpus, parent)).toInt(), gpus);
    QCOMPARE(text(tree, parent, r, ClusterTreeModel::State), state);
    QCOMPARE(text(tree, parent, r, ClusterTreeModel::Pool), pool);
    QCOMPARE(text(tree, parent, r, ClusterTreeModel::Detail), detail);
    QCOMPARE(i.data(ClusterTreeModel::IdRole).toUInt(), static_cast<uint>(n->id));
    // The node sits under its leaf, which sits under its spine.
    QCOMPARE(parent.data().toString(), qs(demo_->switches()[static_cast<size_t>(n->leaf)].name));
    QCOMPARE(parent.parent().data().toString(),
             qs(demo_->switches()[static_cast<size_t>(demo_->spineOf(n->id))].name));
  }

  void demoGpuTexts() {
    ClusterTreeModel tree;
    tree.setCluster(demo_);
    const QModelIndex inf = findNodeIndex(tree, QStringLiteral("inf-01"));
    QVERIFY(inf.isValid());
    const Node* n = demo_->findNode("inf-01");
    QCOMPARE(tree.rowCount(inf), n->gpuCount());
    // GPU4 of inf-01: 3g.40gb@0,3g.40gb@4 (demo spec, group inf, "4-5").
    const QString gpu4 = text(tree, inf, 4, ClusterTreeModel::Detail);
    QVERIFY2(gpu4.contains(QStringLiteral("MIG 3g.40gb")), qPrintable(gpu4));
    for (int g = 0; g < n->gpuCount(); ++g) {
      const Gpu& gpu = demo_->gpu(n->firstGpu + static_cast<GpuId>(g));
      const QString detail = text(tree, inf, g, ClusterTreeModel::Detail);
      if (gpu.sharing.mode == SharingMode::Mig)
        QCOMPARE(detail,
                 QStringLiteral("MIG ") + qs(formatMigLayout(n->gpuModel(), gpu.sharing.mig)));
      else
        QCOMPARE(detail, QStringLiteral("exclusive"));
      QCOMPARE(text(tree, inf, g, ClusterTreeModel::Model), QStringLiteral("A100-SXM4-80GB"));
      QCOMPARE(text(tree, inf, g, ClusterTreeModel::State), QStringLiteral("inf-01/nvswitch"));
    }
    QCOMPARE(text(tree, inf, 6, ClusterTreeModel::Detail), QStringLiteral("exclusive"));
    QVERIFY(text(tree, inf, 0, ClusterTreeModel::Detail).startsWith(QStringLiteral("MIG ")));
    QVERIFY(text(tree, inf, 0, ClusterTreeModel::Detail).contains(QStringLiteral("3g.40gb@4")));

    const QModelIndex l4 = findNodeIndex(tree, QStringLiteral("dev-l4-01"));
    QVERIFY(l4.isValid());
    QCOMPARE(text(tree, l4, 0, ClusterTreeModel::Detail), QStringLiteral("time-sliced x2"));
    QCOMPARE(text(tree, l4, 0, ClusterTreeModel::State), QString());  // no NVLink domain

    const QModelIndex l40s = findNodeIndex(tree, QStringLiteral("dev-l40s-02"));
    QVERIFY(l40s.isValid());
    QCOMPARE(text(tree, l40s, 3, ClusterTreeModel::Detail), QStringLiteral("exclusive"));
    QCOMPARE(text(tree, l40s, 4, ClusterTreeModel::Detail), QStringLiteral("time-sliced x4"));

    const QModelIndex rack = findNodeIndex(tree, QStringLiteral("nvl72-18"));
    QVERIFY(rack.isValid());
    QCOMPARE(text(tree, rack, 3, ClusterTreeModel::State), QStringLiteral("nvl72-nvl-1"));
  }

  void headers() {
    ClusterTreeModel model;
    model.setCluster(demo_);
    QCOMPARE(model.columnCount(), 6);
    const QStringList expected{"Name", "GPU model", "GPUs", "State", "Pool", "Detail"};
    for (int c = 0; c < model.columnCount(); ++c)
      QCOMPARE(model.headerData(c, Qt::Horizontal).toString(), expected[c]);
    QVERIFY(!model.headerData(0, Qt::Vertical).isValid());
    QVERIFY(!model.headerData(6, Qt::Horizontal).isValid());
  }

  void invalidIndexes() {
    ClusterTreeModel model;
    model.setCluster(demo_);
    QVERIFY(!model.index(-1, 0).isValid());
    QVERIFY(!model.index(0, -1).isValid());
    QVERIFY(!model.index(0, ClusterTreeModel::ColumnCount).isValid());
    QVERIFY(!model.index(model.rowCount(), 0).isValid());
    QVERIFY(!model.parent(QModelIndex()).isValid());
    QVERIFY(!model.data(QModelIndex()).isValid());
    // Only column 0 has children.
    QCOMPARE(model.rowCount(model.index(0, ClusterTreeModel::Detail)), 0);
  }

  // ---- golden text dumps of small specs -----------------------------------------------------

  void tinySpecDump() {
    ClusterTreeModel model;
    model.setCluster(load(kTinySpec, "tiny.yaml"));
    const QString expected = QStringLiteral(
        "sp |  | 3 |  |  | spine, 1 leaf\n"
        "  lf |  | 3 |  |  | leaf, 2 nodes\n"
        "    n1 | A30-24GB | 1 | up | inf | template a30\n"
        "      GPU0 | A30-24GB |  |  |  | MIG 2g.12gb@0,1g.6gb@2,1g.6gb@3\n"
        "    n2 | H100-SXM5-80GB | 2 | draining | train | template h100x2\n"
        "      GPU0 | H100-SXM5-80GB |  | n2/nvswitch |  | exclusive\n"
        "      GPU1 | H100-SXM5-80GB |  | n2/nvswitch |  | time-sliced x4\n");
    QCOMPARE(dump(model), expected);
  }

  // MPS on a GPU gives its thread budget (and node_sharing one); MPS inside MIG instances follows
  // the layout.
  void mpsSpecDump() {
    ClusterTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setCluster(load(test::kMpsClusterSpec, "mps.yaml"));
    const QString expected = QStringLiteral(
        "l1 |  | 3 |  |  | leaf, 2 nodes\n"
        "  p1 | L40S | 2 | up |  | template l40s\n"
        "    GPU0 | L40S |  |  |  | MPS, thread budget 150%\n"
        "    GPU1 | L40S |  |  |  | exclusive\n"
        "  m1 | A100-SXM4-40GB | 1 | up |  | template a100\n"
        "    GPU0 | A100-SXM4-40GB |  |  |  | MIG 3g.20gb@0,3g.20gb@4, MPS in the instances\n");
    QCOMPARE(dump(model), expected);
    // Under node_sharing: one the sharing column says the node serves one GPU at a time.
    model.setCluster(load(test::mpsClusterSpecOneSharing().c_str(), "mps-one.yaml"));
    QVERIFY(dump(model).contains(
        QStringLiteral("    GPU0 | L40S |  |  |  | MPS, thread budget 150%, one GPU per node at a "
                       "time\n")));
  }

  void orphanLeafIsTopLevel() {
    ClusterTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setCluster(load(kOrphanLeafSpec, "orphan.yaml"));
    const QString expected = QStringLiteral(
        "sp |  | 1 |  |  | spine, 1 leaf\n"
        "  lf |  | 1 |  |  | leaf, 1 node\n"
        "    a1 | L4 | 1 | up |  | template l4\n"
        "      GPU0 | L4 |  |  |  | exclusive\n"
        "lone |  | 2 |  |  | leaf, 2 nodes\n"
        "  b1 | L4 | 1 | up |  | template l4\n"
        "    GPU0 | L4 |  |  |  | exclusive\n"
        "  b2 | L4 | 1 | up |  | template l4\n"
        "    GPU0 | L4 |  |  |  | exclusive\n");
    QCOMPARE(dump(model), expected);
    const QModelIndex lone = model.index(1, 0);
    QCOMPARE(lone.data(ClusterTreeModel::KindRole).toInt(), static_cast<int>(Kind::Leaf));
    QVERIFY(!model.parent(lone).isValid());
    QCOMPARE(model.parent(model.index(1, 0, lone)), lone);
  }

  // Switch details use plural nouns even for one item ("spine, 1 leafs", "leaf, 1 nodes").
  void switchDetailSingular() {
    ClusterTreeModel model;
    model.setCluster(load(kOrphanLeafSpec, "orphan.yaml"));
    QCOMPARE(text(model, {}, 0, ClusterTreeModel::Detail), QStringLiteral("spine, 1 leaf"));
    QCOMPARE(text(model, model.index(0, 0), 0, ClusterTreeModel::Detail),
             QStringLiteral("leaf, 1 node"));
    QCOMPARE(text(model, {}, 1, ClusterTreeModel::Detail), QStringLiteral("leaf, 2 nodes"));
  }

  // ---- NodeLinksModel -----------------------------------------------------------------------

  void linksDgxH100() {
    NodeLinksModel model;
    const Node* n = demo_->findNode("pod-a-01");
    QVERIFY(n);
    model.setNode(n->hw);
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(model.columnCount(), 8);
    for (int a = 0; a < 8; ++a)
      for (int b = 0; b < 8; ++b)
        QCOMPARE(model.data(model.index(a, b)).toString(),
                 a == b ? QStringLiteral("X") : QStringLiteral("NV18"));
    QCOMPARE(model.headerData(3, Qt::Horizontal).toString(), QStringLiteral("GPU3"));
    QCOMPARE(model.headerData(3, Qt::Vertical).toString(), QStringLiteral("GPU3"));
    const QVariant bg = model.data(model.index(0, 1), Qt::BackgroundRole);
    QVERIFY(bg.canConvert<QColor>());
    QVERIFY(bg.value<QColor>().isValid());
    QVERIFY(model.data(model.index(0, 1), Qt::TextAlignmentRole).isValid());
  }

  void linksPcieTopo() {
    // dev-l40s nodes: template l40s-pcie-8, the `nvidia-smi topo -m` text of reference 3.1
    // example B embedded in resources/demo-cluster.yaml.
    NodeLinksModel model;
    const Node* n = demo_->findNode("dev-l40s-01");
    QVERIFY(n);
    model.setNode(n->hw);
    QCOMPARE(model.rowCount(), 8);
    const std::map<std::pair<int, int>, QString> cells{
        {{0, 0}, "X"},   {{0, 1}, "PIX"},  {{0, 2}, "NODE"}, {{0, 4}, "SYS"}, {{2, 3}, "PIX"},
        {{4, 5}, "PIX"}, {{6, 4}, "NODE"}, {{7, 0}, "SYS"},  {{7, 6}, "PIX"}, {{7, 7}, "X"}};
    for (const auto& [ab, expected] : cells)
      QCOMPARE(model.data(model.index(ab.first, ab.second)).toString(), expected);
    // Better paths are drawn differently from worse ones.
    QVERIFY(model.data(model.index(0, 1), Qt::BackgroundRole).value<QColor>() !=
            model.data(model.index(0, 4), Qt::BackgroundRole).value<QColor>());
  }

 private:
  std::shared_ptr<const Cluster> demo_;
};

QTEST_MAIN(TstClusterModel)
#include "tst_cluster_model.moc"
