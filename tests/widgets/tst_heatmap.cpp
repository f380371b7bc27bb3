// The topology heatmap: HeatmapLayout's geometry and hit testing (a hand-written snapshot, the
// demo cluster through a real Backend, and a synthetic 10,000-GPU cluster checked against a
// brute-force scan), NUMA zone blocks from the snapshot, and HeatmapWidget's behaviour through
// real input events: clicks, rubber band, wheel and pinch zoom, layer colors read back from
// grab(), job highlight, a synthetic drop and the drop preview's round trip. Expected values come
// from the snapshots and hardware written here, never from the code under test.
#include <QGestureEvent>
#include <QMimeData>
#include <QNativeGestureEvent>
#include <QPinchGesture>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <map>
#include <memory>
#include <set>

#include "../service/backend_test_util.h"
#include "clusterspec/cluster_spec.h"
#include "heatmap_layout.h"
#include "heatmap_widget.h"
#include "job_table_model.h"
#include "service/backend.h"
#include "topology/cluster.h"
#include "topology/gpu_catalog.h"
#include "workload/workload_spec.h"

using namespace tessera;
using namespace tessera::widgets;

namespace {

GpuView gpu(int index, const std::string& model = "H100-SXM5-80GB") {
  GpuView g;
  g.index = index;
  g.model = model;
  g.sharing = "exclusive";
  g.util = 0.0;
  g.smActive = 0.0;
  return g;
}

void occupy(GpuView& g, JobId job, const std::string& team, double util) {
  g.occupants.push_back({job, 1000, "", team, -1});
  g.allocated = 1;
  g.util = util;
  g.smActive = util / 2;
}

NodeView node(const std::string& name, const std::string& leaf, int gpus,
              const std::string& state = "up") {
  NodeView n;
  n.name = name;
  n.state = state;
  n.pool = "training";
  n.leaf = leaf;
  n.spine = "spine-1";
  for (int i = 0; i < gpus; ++i) n.gpus.push_back(gpu(i));
  return n;
}

// Two leaves under one spine:
//   leaf-a: a1 (4 x H100, one NVSwitch domain; GPU0 job 5 nlp, GPU2 job 6 vision without
//           telemetry), a2 (4 x H100; GPU0 job 5 nlp), a3 (2 GPUs, draining with nothing left:
//           drained)
//   leaf-b: r1, r2 (2 GPUs each, one NVLink rack domain), m1 (A100-80GB in MIG mode with
//           3g.40gb@4 busy (job 7, vision), 2g.20gb@0 and two 1g.10gb idle)
ClusterSnapshot tinySnapshot() {
  ClusterSnapshot s;
  NodeView a1 = node("a1", "leaf-a", 4);
  for (auto& g : a1.gpus) g.nvlinkDomain = "a1-nvswitch";
  occupy(a1.gpus[0], 5, "nlp", 0.9);
  occupy(a1.gpus[2], 6, "vision", 0.5);
  a1.gpus[2].util.reset();
  a1.gpus[2].smActive.reset();
  NodeView a2 = node("a2", "leaf-a", 4);
  occupy(a2.gpus[0], 5, "nlp", 0.8);
  NodeView a3 = node("a3", "leaf-a", 2, "draining");
  NodeView r1 = node("r1", "leaf-b", 2);
  NodeView r2 = node("r2", "leaf-b", 2);
  for (NodeView* n : {&r1, &r2})
    for (auto& g : n->gpus) g.nvlinkDomain = "rack-1";
  NodeView m1 = node("m1", "leaf-b", 1);
  GpuView& mig = m1.gpus[0];
  mig.model = "A100-SXM4-80GB";
  mig.sharing = "mig";
  mig.migLayout = "3g.40gb@4*,2g.20gb@0,1g.10gb@2,1g.10gb@3";
  mig.occupants.push_back({7, 500, "3g.40gb", "vision", 4});
  mig.allocated = 0.5;
  s.nodes = {a1, a2, a3, r1, r2, m1};
  s.teams = {{"nlp", "", 2, 0, 0}, {"vision", "", 1.5, 0, 0}};
  return s;
}

// The tiny snapshot with GPU sharing side by side: a2/1 runs MPS (clients 11 and 12 of team
// search: 25 % and 50 % active threads, 8 and 4 GiB pinned, of 48 clients and 100 %; node_sharing
// one), a2/2 is
// time-sliced with the same shares (jobs 13 and 14), and m1's instances run MPS servers (job 15,
// 25 % and 2 GiB, on the idle 2g.20gb@0).
ClusterSnapshot tinySnapshotWithMps() {
  ClusterSnapshot s = tinySnapshot();
  GpuView& mps = s.nodes[1].gpus[1];
  mps.sharing = "mps";
  mps.mps = GpuView::Mps{48, 100, MpsCoLocation::Team, MpsNodeSharing::One};
  mps.occupants = {{11, 250, "", "search", -1, 25, 8192}, {12, 500, "", "search", -1, 50, 4096}};
  mps.allocated = 0.75;
  GpuView& sliced = s.nodes[1].gpus[2];
  sliced.sharing = "shared";
  sliced.occupants = {{13, 250, "", "search", -1}, {14, 500, "", "search", -1}};
  sliced.allocated = 0.75;
  GpuView& mig = s.nodes[5].gpus[0];
  mig.mps = GpuView::Mps{48, 100, MpsCoLocation::User};
  mig.occupants.push_back({15, 250, "", "search", 0, 25, 2048});
  return s;
}

// The tiny snapshot with NUMA zones as a backend reports them: a1 in two pairs, a2 interleaved,
// r1 in one zone; a3 and the others of no known zone.
ClusterSnapshot tinySnapshotWithZones() {
  ClusterSnapshot s = tinySnapshot();
  const std::map<std::string, std::vector<int>> zones{
      {"a1", {0, 0, 1, 1}}, {"a2", {0, 1, 0, 1}}, {"r1", {0, 0}}};
  for (NodeView& n : s.nodes)
    if (auto z = zones.find(n.name); z != zones.end())
      for (GpuView& g : n.gpus) g.numa = z->second.at(static_cast<size_t>(g.index));
  return s;
}

// The GPU indexes of each NUMA zone of a laid-out node, as the tiles say.
std::map<int, std::set<int>> zonesOf(const HeatmapLayout& l, const HeatmapNodeBox& box) {
  std::map<int, std::set<int>> out;
  for (int i = 0; i < box.tileCount; ++i) {
    const HeatmapTile& t = l.tiles()[static_cast<size_t>(box.firstTile + i)];
    out[t.numa].insert(t.gpu);
  }
  return out;
}

// Each zone frame of a node holds exactly its zone's tiles, inside the node, apart from the
// other zones' frames.
void checkZoneFrames(const HeatmapLayout& l, const HeatmapNodeBox& box) {
  for (int z = 0; z < box.zoneCount; ++z) {
    const HeatmapNumaZone& zone = l.numaZones()[static_cast<size_t>(box.firstZone + z)];
    QCOMPARE(zone.node, static_cast<int>(&box - l.nodes().data()));
    QVERIFY2(box.rect.contains(zone.rect), qPrintable(box.name));
    for (int i = 0; i < box.tileCount; ++i) {
      const HeatmapTile& t = l.tiles()[static_cast<size_t>(box.firstTile + i)];
      if (t.numa == zone.zone)
        QVERIFY2(zone.rect.contains(t.rect), qPrintable(box.name));
      else
        QVERIFY2(!zone.rect.intersects(t.rect), qPrintable(box.name));
    }
    for (int o = z + 1; o < box.zoneCount; ++o)
      QVERIFY(!zone.rect.intersects(l.numaZones()[static_cast<size_t>(box.firstZone + o)].rect));
  }
}

// `nodes` x `gpusPerNode` GPUs spread evenly over `leaves` leaves and `spines` spines.
ClusterSnapshot syntheticSnapshot(int nodes, int gpusPerNode, int leaves, int spines) {
  ClusterSnapshot s;
  for (int n = 0; n < nodes; ++n) {
    const int leaf = n * leaves / nodes;
    NodeView nv = node("n" + std::to_string(n), "leaf-" + std::to_string(leaf), gpusPerNode);
    nv.spine = "spine-" + std::to_string(leaf * spines / leaves);
    for (auto& g : nv.gpus)
      if ((n + g.index) % 3 != 0) occupy(g, static_cast<JobId>(1 + n / 4), "team", 0.5);
    s.nodes.push_back(std::move(nv));
  }
  return s;
}

// The demo cluster as the Backend sees it, with the demo workload submitted and scheduled.
ClusterSnapshot demoSnapshot() {
  QTemporaryDir dir;
  BackendConfig c;
  c.database = dir.filePath("heatmap.db").toStdString();
  c.cluster = demoCluster();
  auto w = demoWorkload();
  if (!w) qFatal("demo workload: %s", w.error().str().c_str());
  c.tenants = *w;
  c.runCycles = false;
  c.clock = [] { return Seconds{5000}; };
  auto b = Backend::open(c);
  if (!b) qFatal("%s", b.error().str().c_str());
  std::vector<Job> jobs = w->jobs;
  for (Job& j : jobs) j.id = kNoJob;
  test::ok(test::await<std::vector<JobId>>(
      [&](auto r) { (*b)->submit(jobs, Caller{}, std::nullopt, r); }));
  test::ok(test::await<CycleStats>([&](auto r) { (*b)->cycleNow(r); }));
  return test::ok(test::await<ClusterSnapshot>([&](auto r) { (*b)->snapshot(r); }));
}

QRectF tileRect(const HeatmapLayout& l, const char* node, int gpu) {
  const int k = l.tileOf(QString::fromLatin1(node), gpu);
  if (k < 0) qFatal("no tile %s/%d", node, gpu);
  return l.tiles()[static_cast<size_t>(k)].rect;
}

const HeatmapNodeBox& nodeBox(const HeatmapLayout& l, const char* name) {
  for (const auto& n : l.nodes())
    if (n.name == QLatin1String(name)) return n;
  qFatal("no node %s", name);
}

// Geometry invariants that hold for any snapshot.
void checkGeometry(const ClusterSnapshot& s, const HeatmapLayout& l) {
  size_t gpus = 0;
  for (const auto& n : s.nodes) gpus += n.gpus.size();
  QCOMPARE(l.tiles().size(), gpus);
  QCOMPARE(l.nodes().size(), s.nodes.size());
  for (const auto& n : s.nodes)
    for (const auto& g : n.gpus)
      QVERIFY2(l.tileOf(QString::fromStdString(n.name), g.index) >= 0, n.name.c_str());
  for (const HeatmapNodeBox& box : l.nodes()) {
    const NodeView& nv = s.nodes[static_cast<size_t>(box.snapshotNode)];
    QCOMPARE(box.name, QString::fromStdString(nv.name));
    const HeatmapFrame& leaf = l.leaves()[static_cast<size_t>(box.leaf)];
    QCOMPARE(leaf.name, QString::fromStdString(nv.leaf));
    QVERIFY2(leaf.rect.contains(box.rect), nv.name.c_str());
    for (int i = 0; i < box.tileCount; ++i)
      QVERIFY(box.rect.contains(l.tiles()[static_cast<size_t>(box.firstTile + i)].rect));
  }
  for (const HeatmapFrame& leaf : l.leaves()) {
    bool inSpine = false;
    for (const HeatmapFrame& spine : l.spines()) inSpine |= spine.rect.contains(leaf.rect);
    QVERIFY2(inSpine, qPrintable(leaf.name));
  }
  // No two tiles, and no two nodes, overlap: the grid query of a tile's (slightly shrunk) rect
  // finds only the tile itself.
  std::vector<int> found;
  for (size_t k = 0; k < l.tiles().size(); ++k) {
    l.tilesIn(l.tiles()[k].rect.adjusted(0.01, 0.01, -0.01, -0.01), found);
    QCOMPARE(found, std::vector<int>{static_cast<int>(k)});
  }
  for (size_t k = 0; k < l.nodes().size(); ++k) {
    l.nodesIn(l.nodes()[k].rect.adjusted(0.01, 0.01, -0.01, -0.01), found);
    QCOMPARE(found, std::vector<int>{static_cast<int>(k)});
  }
  QVERIFY(l.bounds().contains(l.nodes().front().rect));
}

// A widget showing the tiny snapshot, shown offscreen at a fixed size with no legend in the way.
struct Fixture {
  HeatmapWidget w;
  explicit Fixture(const ClusterSnapshot& s = tinySnapshot()) {
    w.setLegendVisible(false);
    w.resize(800, 500);
    w.setSnapshot(s);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) qFatal("not exposed");
    w.fitToView();
  }
  QPoint at(QPointF scene) const { return w.mapFromScene(scene).toPoint(); }
  QPoint tileCenter(const char* node, int gpu) const {
    return at(tileRect(w.heatmapLayout(), node, gpu).center());
  }
  // A pixel well inside the tile, away from the centered GPU number.
  QRgb tilePixel(const QImage& img, const char* node, int gpu) const {
    const QRectF r = w.mapFromScene(tileRect(w.heatmapLayout(), node, gpu));
    return img.pixel((r.topLeft() + QPointF(r.width() * 0.2, r.height() * 0.2)).toPoint());
  }
  QImage grab() { return w.grab().toImage().convertToFormat(QImage::Format_RGB32); }
};

int distinctColors(const QImage& img, const QRect& r) {
  std::set<QRgb> colors;
  for (int y = r.top(); y <= r.bottom(); ++y)
    for (int x = r.left(); x <= r.right(); ++x) colors.insert(img.pixel(x, y));
  return static_cast<int>(colors.size());
}

}  // namespace

class TstHeatmap : public QObject {
  Q_OBJECT

 private slots:
  void layoutOfTheTinySnapshot() {
    const ClusterSnapshot s = tinySnapshot();
    HeatmapLayout l;
    l.build(s);
    checkGeometry(s, l);
    QCOMPARE(l.spines().size(), size_t{1});
    QCOMPARE(l.leaves().size(), size_t{2});
    // The rack's two nodes share one frame; a1's NVSwitch domain is an outline inside a1.
    QCOMPARE(l.domains().size(), size_t{1});
    QCOMPARE(l.domains()[0].name, QStringLiteral("rack-1"));
    QVERIFY(l.domains()[0].rect.contains(nodeBox(l, "r1").rect));
    QVERIFY(l.domains()[0].rect.contains(nodeBox(l, "r2").rect));
    QVERIFY(!l.domains()[0].rect.intersects(nodeBox(l, "m1").rect));
    QCOMPARE(l.nodeDomains().size(), size_t{1});
    QVERIFY(nodeBox(l, "a1").rect.contains(l.nodeDomains()[0].rect));
    for (int g = 0; g < 4; ++g) QVERIFY(l.nodeDomains()[0].rect.contains(tileRect(l, "a1", g)));
  }

  void migInstancesAreSubTilesBySlices() {
    HeatmapLayout l;
    l.build(tinySnapshot());
    const int k = l.tileOf(QStringLiteral("m1"), 0);
    QCOMPARE(l.tiles()[static_cast<size_t>(k)].slices, 8);
    const auto inst = l.instances(k);
    QCOMPARE(inst.size(), size_t{4});
    const QRectF t = l.tiles()[static_cast<size_t>(k)].rect;
    for (size_t i = 0; i < inst.size(); ++i) {
      const QRectF r = l.instanceRect(k, static_cast<int>(i));
      QVERIFY(t.contains(r));
      QCOMPARE(r.width(), t.width() * inst[i].size / 8);
      QCOMPARE(r.left(), t.left() + t.width() * inst[i].start / 8);
    }
    // Only the 3g.40gb instance at slice 4 is busy: occupant 0.
    for (const auto& i : inst) QCOMPARE(i.occupant, i.start == 4 ? 0 : -1);
  }

  void migSlicesWithoutTheCatalog() {
    // A model the catalog does not know: busy instances from the occupants alone, an A30 with 4
    // slices, anything else with 8.
    ClusterSnapshot s = tinySnapshot();
    GpuView& g = s.nodes[5].gpus[0];
    g.model = "Custom-A30-Variant";
    g.occupants = {{7, 500, "2g.12gb", "vision", 2}};
    HeatmapLayout l;
    l.build(s);
    const int k = l.tileOf(QStringLiteral("m1"), 0);
    QCOMPARE(l.tiles()[static_cast<size_t>(k)].slices, 4);
    QCOMPARE(l.instances(k).size(), size_t{1});
    QCOMPARE(l.instances(k)[0].start, 2);
    QCOMPARE(l.instances(k)[0].size, 2);
  }

  void layoutOfTheDemoCluster() {
    const ClusterSnapshot s = demoSnapshot();
    QCOMPARE(s.gpusTotal, 392.0);
    HeatmapLayout l;
    l.build(s);
    checkGeometry(s, l);
    // The NVL72 rack is one multi-node domain: its frame holds every node with a GPU in it.
    QVERIFY(!l.domains().empty());
    for (const HeatmapFrame& d : l.domains())
      for (const HeatmapNodeBox& box : l.nodes()) {
        const NodeView& nv = s.nodes[static_cast<size_t>(box.snapshotNode)];
        if (nv.gpus.front().nvlinkDomain == d.name.toStdString())
          QVERIFY2(d.rect.contains(box.rect), nv.name.c_str());
      }
    // MIG GPUs of the demo get their layout's instances.
    int migTiles = 0;
    for (size_t k = 0; k < l.tiles().size(); ++k)
      if (l.tiles()[k].slices > 0) {
        ++migTiles;
        QVERIFY(!l.instances(static_cast<int>(k)).empty());
      }
    QVERIFY(migTiles > 0);
  }

  void layoutOfTenThousandGpus() {
    const ClusterSnapshot s = syntheticSnapshot(1250, 8, 40, 2);
    HeatmapLayout l;
    l.build(s);
    checkGeometry(s, l);
    QCOMPARE(l.spines().size(), size_t{2});
    QCOMPARE(l.leaves().size(), size_t{40});
    // Roughly the shape of a window, not a ribbon.
    const double aspect = l.bounds().width() / l.bounds().height();
    QVERIFY2(aspect > 0.8 && aspect < 3.5, qPrintable(QString::number(aspect)));
  }

  void hitTesting() {
    HeatmapLayout l;
    l.build(tinySnapshot());
    const QRectF t1 = tileRect(l, "a2", 1);
    auto hit = l.hitTest(t1.center());
    QVERIFY(hit);
    QCOMPARE(hit->node, QStringLiteral("a2"));
    QCOMPARE(hit->gpu, 1);
    QCOMPARE(hit->instance, -1);
    // Between two tiles, on the node's label strip, outside everything: no GPU.
    const QRectF t2 = tileRect(l, "a2", 2);
    QVERIFY(!l.hitTest(QPointF((t1.right() + t2.left()) / 2, t1.center().y())));
    QVERIFY(!l.hitTest(nodeBox(l, "a2").header.center()));
    QCOMPARE(l.nodeAt(nodeBox(l, "a2").header.center()).value(),
             static_cast<int>(&nodeBox(l, "a2") - l.nodes().data()));
    QVERIFY(!l.hitTest(l.bounds().bottomRight() + QPointF(50, 50)));
    QVERIFY(!l.hitTest(QPointF(-5, -5)));
    QVERIFY(!l.nodeAt(QPointF(-5, -5)));
  }

  void hitTestingMigInstances() {
    HeatmapLayout l;
    l.build(tinySnapshot());
    const QRectF t = tileRect(l, "m1", 0);
    auto atSlice = [&](double slice) {
      return l.hitTest(QPointF(t.left() + t.width() * slice / 8, t.center().y()));
    };
    auto h = atSlice(5.5);
    QVERIFY(h && h->instance >= 0);
    QCOMPARE(l.instances(h->tile)[static_cast<size_t>(h->instance)].profile,
             QStringLiteral("3g.40gb"));
    QCOMPARE(l.instances(h->tile)[static_cast<size_t>(h->instance)].occupant, 0);
    h = atSlice(0.5);
    QCOMPARE(l.instances(h->tile)[static_cast<size_t>(h->instance)].profile,
             QStringLiteral("2g.20gb"));
    h = atSlice(2.5);
    QCOMPARE(l.instances(h->tile)[static_cast<size_t>(h->instance)].start, 2);
    QCOMPARE(l.instances(h->tile)[static_cast<size_t>(h->instance)].occupant, -1);
  }

  void hitTestAgreesWithABruteForceScan() {
    HeatmapLayout l;
    l.build(syntheticSnapshot(1250, 8, 40, 2));
    QRandomGenerator rng(7);
    const QRectF b = l.bounds().adjusted(-10, -10, 10, 10);
    int hits = 0;
    for (int i = 0; i < 5000; ++i) {
      const QPointF p(b.left() + rng.generateDouble() * b.width(),
                      b.top() + rng.generateDouble() * b.height());
      int expected = -1;
      for (size_t k = 0; k < l.tiles().size(); ++k)
        if (l.tiles()[k].rect.contains(p)) expected = static_cast<int>(k);
      const auto hit = l.hitTest(p);
      QCOMPARE(hit ? hit->tile : -1, expected);
      hits += expected >= 0;
    }
    QVERIFY(hits > 100);  // the points did land on tiles
    // Rectangle queries too: the grid's answer is the set a scan finds.
    std::vector<int> found;
    for (int i = 0; i < 50; ++i) {
      const QRectF r(b.left() + rng.generateDouble() * b.width(),
                     b.top() + rng.generateDouble() * b.height(), rng.bounded(400),
                     rng.bounded(300));
      l.tilesIn(r, found);
      std::set<int> got(found.begin(), found.end()), expected;
      QCOMPARE(got.size(), found.size());
      for (size_t k = 0; k < l.tiles().size(); ++k)
        if (l.tiles()[k].rect.intersects(r)) expected.insert(static_cast<int>(k));
      QCOMPARE(got, expected);
    }
  }

  void clickSelectsAGpuOrANode() {
    Fixture f;
    QSignalSpy gpu(&f.w, &HeatmapWidget::gpuSelected);
    QSignalSpy node(&f.w, &HeatmapWidget::nodeSelected);
    QTest::mouseClick(&f.w, Qt::LeftButton, {}, f.tileCenter("a2", 3));
    QCOMPARE(gpu.count(), 1);
    QCOMPARE(gpu.at(0).at(0).toString(), QStringLiteral("a2"));
    QCOMPARE(gpu.at(0).at(1).toInt(), 3);
    QCOMPARE(f.w.selectedGpus(), QStringList{QStringLiteral("a2/3")});
    QTest::mouseClick(&f.w, Qt::LeftButton, {},
                      f.at(nodeBox(f.w.heatmapLayout(), "r1").header.center()));
    QCOMPARE(node.count(), 1);
    QCOMPARE(node.at(0).at(0).toString(), QStringLiteral("r1"));
    QCOMPARE(gpu.count(), 1);
    // Ctrl-click adds to the selection and reports all of it.
    QSignalSpy many(&f.w, &HeatmapWidget::gpusSelected);
    QTest::mouseClick(&f.w, Qt::LeftButton, {}, f.tileCenter("a1", 0));
    QTest::mouseClick(&f.w, Qt::LeftButton, Qt::ControlModifier, f.tileCenter("m1", 0));
    QCOMPARE(many.count(), 1);
    QCOMPARE(many.at(0).at(0).toStringList(), (QStringList{"a1/0", "m1/0"}));
  }

  void rubberBandSelectsTheGpusItTouches() {
    Fixture f;
    QSignalSpy many(&f.w, &HeatmapWidget::gpusSelected);
    const HeatmapLayout& l = f.w.heatmapLayout();
    // From just above-left of a1's first tile to the middle of its last one: all four GPUs.
    const QRectF first = tileRect(l, "a1", 0);
    const QPoint from = f.at(first.topLeft() - QPointF(1, 1));
    const QPoint to = f.tileCenter("a1", 3);
    QTest::mousePress(&f.w, Qt::LeftButton, {}, from);
    QTest::mouseMove(&f.w, (from + to) / 2);
    QTest::mouseMove(&f.w, to);
    QTest::mouseRelease(&f.w, Qt::LeftButton, {}, to);
    QCOMPARE(many.count(), 1);
    QCOMPARE(many.at(0).at(0).toStringList(), (QStringList{"a1/0", "a1/1", "a1/2", "a1/3"}));
    QCOMPARE(f.w.selectedGpus().size(), 4);
  }

  void wheelZoomKeepsThePointUnderTheCursor() {
    Fixture f;
    const QPointF cursor = f.tileCenter("m1", 0);
    const QPointF before = f.w.mapToScene(cursor);
    const double zoom = f.w.zoom();
    QWheelEvent in(cursor, f.w.mapToGlobal(cursor), QPoint(), QPoint(0, 240), Qt::NoButton,
                   Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&f.w, &in);
    QVERIFY(qAbs(f.w.zoom() / zoom - std::sqrt(2.0)) < 1e-9);
    QVERIFY((f.w.mapToScene(cursor) - before).manhattanLength() < 1e-6);
    // And the same GPU is still under the cursor.
    QCOMPARE(f.w.heatmapLayout().hitTest(f.w.mapToScene(cursor))->node, QStringLiteral("m1"));
    QWheelEvent out(cursor, f.w.mapToGlobal(cursor), QPoint(), QPoint(0, -240), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&f.w, &out);
    QVERIFY(qAbs(f.w.zoom() - zoom) < 1e-9);
  }

  void middleDragPans() {
    Fixture f;
    const QPointF scene = f.w.mapToScene(QPointF(100, 100));
    QTest::mousePress(&f.w, Qt::MiddleButton, {}, QPoint(100, 100));
    QTest::mouseMove(&f.w, QPoint(130, 90));
    QTest::mouseRelease(&f.w, Qt::MiddleButton, {}, QPoint(130, 90));
    QVERIFY((f.w.mapFromScene(scene) - QPointF(130, 90)).manhattanLength() < 1e-6);
  }

  void spaceDragPansToo() {
    Fixture f;
    QSignalSpy many(&f.w, &HeatmapWidget::gpusSelected);
    const QPointF scene = f.w.mapToScene(QPointF(100, 100));
    QTest::keyPress(&f.w, Qt::Key_Space);
    QTest::mousePress(&f.w, Qt::LeftButton, {}, QPoint(100, 100));
    QTest::mouseMove(&f.w, QPoint(60, 140));
    QTest::mouseRelease(&f.w, Qt::LeftButton, {}, QPoint(60, 140));
    QTest::keyRelease(&f.w, Qt::Key_Space);
    QVERIFY((f.w.mapFromScene(scene) - QPointF(60, 140)).manhattanLength() < 1e-6);
    QCOMPARE(many.count(), 0);  // a pan, not a rubber band
  }

  void anEmptySnapshotIsHarmless() {
    Fixture f(ClusterSnapshot{});
    QVERIFY(f.w.heatmapLayout().tiles().empty());
    QVERIFY(!f.w.heatmapLayout().hitTest(QPointF(0, 0)));
    QSignalSpy gpu(&f.w, &HeatmapWidget::gpuSelected);
    QTest::mouseClick(&f.w, Qt::LeftButton, {}, QPoint(400, 250));
    QCOMPARE(gpu.count(), 0);
    QVERIFY(f.w.toolTipAt(QPointF(400, 250)).isEmpty());
    QVERIFY(!f.grab().isNull());
    // A node without GPUs still gets its frame.
    ClusterSnapshot s;
    s.nodes.push_back(node("bare", "", 0));
    f.w.setSnapshot(s);
    QCOMPARE(f.w.heatmapLayout().nodes().size(), size_t{1});
    QVERIFY(!f.grab().isNull());
  }

  void setSnapshotKeepsTheView() {
    Fixture f;
    f.w.zoomAt(QPointF(200, 200), 1.5);
    QTest::mouseClick(&f.w, Qt::LeftButton, {}, f.tileCenter("a2", 1));
    const double zoom = f.w.zoom();
    const QPointF origin = f.w.mapFromScene(QPointF(0, 0));
    ClusterSnapshot s = tinySnapshot();
    occupy(s.nodes[1].gpus[1], 9, "nlp", 0.3);
    f.w.setSnapshot(s);
    QCOMPARE(f.w.zoom(), zoom);
    QCOMPARE(f.w.mapFromScene(QPointF(0, 0)), origin);
    QCOMPARE(f.w.selectedGpus(), QStringList{QStringLiteral("a2/1")});
  }

  void allocationLayerColors() {
    Fixture f;
    const QImage img = f.grab();
    // a1/0 is held by a job, a1/1 is free; m1/0 is half allocated.
    QVERIFY(f.tilePixel(img, "a1", 0) != f.tilePixel(img, "a1", 1));
    QCOMPARE(f.tilePixel(img, "a1", 1), f.tilePixel(img, "a2", 2));
    QCOMPARE(QColor(f.tilePixel(img, "a1", 0)), heatmapScaleColor(HeatmapLayer::Allocation, 1));
    // Zoomed out below the detail threshold the same colors come from the batched path.
    f.w.zoomAt(QPointF(0, 0), 10.0 / (f.w.zoom() * f.w.heatmapLayout().params().tile));
    const QImage small = f.grab();
    QVERIFY(f.tilePixel(small, "a1", 0) != f.tilePixel(small, "a1", 1));
    QCOMPARE(QColor(f.tilePixel(small, "a1", 1)), heatmapScaleColor(HeatmapLayer::Allocation, 0));
  }

  void teamLayerColorsTeamsApart() {
    Fixture f;
    f.w.setLayer(HeatmapLayer::Team);
    const QImage img = f.grab();
    const QRgb nlp = f.tilePixel(img, "a1", 0);
    const QRgb vision = f.tilePixel(img, "a1", 2);
    QVERIFY(nlp != vision);
    QCOMPARE(QColor(nlp), heatmapTeamColor(QStringLiteral("nlp")));
    QCOMPARE(f.tilePixel(img, "a2", 0), nlp);  // the same team on another node
    QVERIFY(f.tilePixel(img, "a1", 1) != nlp && f.tilePixel(img, "a1", 1) != vision);
    // The busy MIG instance in vision's color, an idle one not.
    const QRectF t = f.w.mapFromScene(tileRect(f.w.heatmapLayout(), "m1", 0));
    const QPoint busy((t.topLeft() + QPointF(t.width() * 5.5 / 8, t.height() * 0.8)).toPoint());
    const QPoint idle((t.topLeft() + QPointF(t.width() * 0.5 / 8, t.height() * 0.8)).toPoint());
    QCOMPARE(img.pixel(busy), vision);
    QVERIFY(img.pixel(idle) != vision);
    QCOMPARE(heatmapTeamColor(QStringLiteral("nlp")), heatmapTeamColor(QStringLiteral("nlp")));
  }

  void missingTelemetryIsNotDrawnLikeZero() {
    for (HeatmapLayer layer :
         {HeatmapLayer::Utilization, HeatmapLayer::SmActive, HeatmapLayer::Gap}) {
      Fixture f;
      f.w.setLayer(layer);
      const QImage img = f.grab();
      // a1/1 reports 0, a1/2 reports nothing: hatched (several colors), never the zero color.
      const QRgb zero = f.tilePixel(img, "a1", 1);
      QCOMPARE(QColor(zero), heatmapScaleColor(layer, 0));
      const QRect missing = f.w.mapFromScene(tileRect(f.w.heatmapLayout(), "a1", 2))
                                .toAlignedRect()
                                .adjusted(3, 3, -3, -3);
      QVERIFY(distinctColors(img, missing) >= 2);
      for (int y = missing.top(); y <= missing.bottom(); ++y)
        for (int x = missing.left(); x <= missing.right(); ++x) QVERIFY(img.pixel(x, y) != zero);
      QVERIFY(f.tilePixel(img, "a1", 0) != zero);  // busy
    }
  }

  void tensorMemoryAndPowerLayersColorTiles() {
    // Every GPU reports the three new values except a1/2; a1/0 runs hot, a1/1 barely.
    ClusterSnapshot s = tinySnapshot();
    for (NodeView& n : s.nodes)
      for (GpuView& g : n.gpus) {
        g.tensorActive = 0.5;
        g.memoryUsed = 0.5;
        g.power = 0.5;
      }
    GpuView& hot = s.nodes[0].gpus[0];
    hot.tensorActive = 0.9;
    hot.memoryUsed = 0.9;
    hot.power = 0.9;
    GpuView& cold = s.nodes[0].gpus[1];
    cold.tensorActive = 0.1;
    cold.memoryUsed = 0.1;
    cold.power = 0.1;
    GpuView& none = s.nodes[0].gpus[2];
    none.tensorActive.reset();
    none.memoryUsed.reset();
    none.power.reset();
    for (HeatmapLayer layer :
         {HeatmapLayer::TensorActive, HeatmapLayer::MemoryUsed, HeatmapLayer::Power}) {
      Fixture f(s);
      f.w.setLayer(layer);
      QVERIFY(!heatmapLayerName(layer).isEmpty());
      const QImage img = f.grab();
      const QRgb high = f.tilePixel(img, "a1", 0);
      const QRgb low = f.tilePixel(img, "a1", 1);
      QVERIFY(high != low);
      // No value: hatched, never the zero color.
      const QRgb zero = heatmapScaleColor(layer, 0).rgb();
      QVERIFY(high != zero && low != zero);
      const QRect missing = f.w.mapFromScene(tileRect(f.w.heatmapLayout(), "a1", 2))
                                .toAlignedRect()
                                .adjusted(3, 3, -3, -3);
      QVERIFY(distinctColors(img, missing) >= 2);
      for (int y = missing.top(); y <= missing.bottom(); ++y)
        for (int x = missing.left(); x <= missing.right(); ++x) QVERIFY(img.pixel(x, y) != zero);
      const std::vector<HeatmapLegendEntry> legend = f.w.legend();
      QCOMPARE(legend.size(), size_t{6});  // 0 .. 100 % and no telemetry
      QCOMPARE(legend.front().color, heatmapScaleColor(layer, 0));
      QVERIFY(legend.back().hatched);
      const QString tip = f.w.toolTipAt(f.tileCenter("a1", 0));
      QVERIFY2(tip.contains(QStringLiteral("tensor active 90")) &&
                   tip.contains(QStringLiteral("memory used 90")) &&
                   tip.contains(QStringLiteral("power 90")),
               qPrintable(tip));
    }
    // The three scales are told apart from each other and from utilization.
    QVERIFY(heatmapScaleColor(HeatmapLayer::TensorActive, 1) !=
            heatmapScaleColor(HeatmapLayer::Utilization, 1));
    QVERIFY(heatmapScaleColor(HeatmapLayer::MemoryUsed, 1) !=
            heatmapScaleColor(HeatmapLayer::Power, 1));
  }

  void temperatureLayerColorsHotAndColdTiles() {
    // a1/0 runs hot, a1/1 idles cool, a1/2 reports no temperature; the rest sit in between.
    ClusterSnapshot s = tinySnapshot();
    for (NodeView& n : s.nodes)
      for (GpuView& g : n.gpus) g.temperatureC = 55;
    s.nodes[0].gpus[0].temperatureC = 84;
    s.nodes[0].gpus[1].temperatureC = 33;
    s.nodes[0].gpus[2].temperatureC.reset();
    Fixture f(s);
    f.w.setLayer(HeatmapLayer::Temperature);
    QVERIFY(!heatmapLayerName(HeatmapLayer::Temperature).isEmpty());
    const QImage img = f.grab();
    auto scaled = [](double c) {
      return (c - kHeatmapTemperatureMinC) / (kHeatmapTemperatureMaxC - kHeatmapTemperatureMinC);
    };
    // The tiles are painted in 64 steps of the scale.
    auto painted = [&](double c) {
      return heatmapScaleColor(HeatmapLayer::Temperature, std::round(scaled(c) * 64) / 64);
    };
    const QRgb hot = f.tilePixel(img, "a1", 0);
    const QRgb cold = f.tilePixel(img, "a1", 1);
    QVERIFY(hot != cold);
    QCOMPARE(QColor(hot), painted(84));
    QCOMPARE(QColor(cold), painted(33));
    QCOMPARE(QColor(f.tilePixel(img, "a2", 0)), painted(55));
    // Hot reads red (warm), cold reads blue (cool).
    QVERIFY(qRed(hot) > qBlue(hot));
    QVERIFY(qBlue(cold) > qRed(cold));
    // No temperature: hatched, never the coldest color.
    const QRgb zero = heatmapScaleColor(HeatmapLayer::Temperature, 0).rgb();
    const QRect missing = f.w.mapFromScene(tileRect(f.w.heatmapLayout(), "a1", 2))
                              .toAlignedRect()
                              .adjusted(3, 3, -3, -3);
    QVERIFY(distinctColors(img, missing) >= 2);
    for (int y = missing.top(); y <= missing.bottom(); ++y)
      for (int x = missing.left(); x <= missing.right(); ++x) {
        QVERIFY(img.pixel(x, y) != zero);
        QVERIFY(img.pixel(x, y) != cold);
      }
    // The legend in °C from 30 to 90, then "no telemetry".
    const std::vector<HeatmapLegendEntry> legend = f.w.legend();
    QCOMPARE(legend.size(), size_t{6});
    QCOMPARE(legend.front().label, QStringLiteral("30 °C"));
    QCOMPARE(legend[4].label, QStringLiteral("90 °C"));
    QCOMPARE(legend.front().color, heatmapScaleColor(HeatmapLayer::Temperature, 0));
    QVERIFY(legend.back().hatched);
    // The tooltip tells the temperature, or that there is none.
    const QString tip = f.w.toolTipAt(f.tileCenter("a1", 0));
    QVERIFY2(tip.contains(QStringLiteral("temperature 84 °C")), qPrintable(tip));
    const QString none = f.w.toolTipAt(f.tileCenter("a1", 2));
    QVERIFY2(none.contains(QStringLiteral("temperature no telemetry")), qPrintable(none));
    // Told apart from the power scale.
    QVERIFY(heatmapScaleColor(HeatmapLayer::Temperature, 1) !=
            heatmapScaleColor(HeatmapLayer::Power, 1));
  }

  void healthLayerShowsDrainedNodes() {
    Fixture f;
    f.w.setLayer(HeatmapLayer::Health);
    const QImage img = f.grab();
    QVERIFY(f.tilePixel(img, "a3", 0) != f.tilePixel(img, "a1", 0));
    QCOMPARE(f.tilePixel(img, "a1", 1), f.tilePixel(img, "a1", 0));  // up, whatever the load
  }

  // a2's GPU 1 fell off the bus ten minutes ago and the node drains for it: the Health layer
  // paints that GPU in the fault color, every other layer marks its corner, and the tooltips say
  // what, since when, until when and why the node is out.
  void healthLayerShowsGpuFaultsAndWhyANodeIsOut() {
    ClusterSnapshot s = tinySnapshot();
    s.now = 10000;
    NodeView& a2 = s.nodes[1];
    a2.state = "draining";
    a2.stateReason = phrase(text::kOutXid, 79, "a2/1");
    a2.gpus[1].fault = GpuView::Fault{79, "GPU has fallen off the bus", 10000 - 600, 10000 + 1200};
    Fixture f(s);
    f.w.setLayer(HeatmapLayer::Health);
    const auto legend = f.w.legend();
    QCOMPARE(legend.size(), size_t{5});
    QCOMPARE(legend[1].label, QStringLiteral("GPU fault (Xid)"));
    QImage img = f.grab();
    QCOMPARE(QColor(f.tilePixel(img, "a2", 1)), legend[1].color);
    QCOMPARE(QColor(f.tilePixel(img, "a1", 0)), legend[0].color);    // up
    QVERIFY(QColor(f.tilePixel(img, "a2", 0)) != legend[1].color);   // its node drains
    QCOMPARE(f.tilePixel(img, "a2", 0), f.tilePixel(img, "a2", 2));  // the same way
    QVERIFY(QColor(f.tilePixel(img, "a2", 0)) != legend[0].color);

    f.w.setLayer(HeatmapLayer::Allocation);
    img = f.grab();
    auto corner = [&](const char* node, int gpu) {
      const QRectF r = f.w.mapFromScene(tileRect(f.w.heatmapLayout(), node, gpu));
      return QColor(
          img.pixel((r.topRight() + QPointF(-r.width() * 0.1, r.height() * 0.1)).toPoint()));
    };
    QCOMPARE(corner("a2", 1), legend[1].color);
    QVERIFY(corner("a2", 2) != legend[1].color);
    QVERIFY(QColor(f.tilePixel(img, "a2", 1)) != legend[1].color);  // the rest shows allocation

    const QString tip = f.w.toolTipAt(f.tileCenter("a2", 1));
    QVERIFY2(tip.contains(QStringLiteral("Xid 79: GPU has fallen off the bus, for 10 min")),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("repair expected in 20 min")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("state draining (Xid 79 on GPU a2/1)")), qPrintable(tip));
    QVERIFY(!f.w.toolTipAt(f.tileCenter("a2", 2)).contains(QStringLiteral("Xid 79:")));
    const QPoint header = f.at(nodeBox(f.w.heatmapLayout(), "a2").header.center());
    QVERIFY(f.w.toolTipAt(header).contains(QStringLiteral("(Xid 79 on GPU a2/1)")));
  }

  // A node out for Slurm and for an operator at once: the node's tooltip lists each hold with
  // its owner (clearing the operator's drain would leave Slurm's).
  void nodeTooltipListsHoldsWithOwners() {
    ClusterSnapshot s = tinySnapshot();
    s.executor = {"slurm", "ready", {}, 0};
    s.nodes[1].state = "down";
    s.nodes[1].holds = {{"executor", {}, literal("Not responding"), true, 0},
                        {"operator", {}, literal("psu swap"), false, 0}};
    Fixture f(s);
    const QPoint header = f.at(nodeBox(f.w.heatmapLayout(), "a2").header.center());
    const QString tip = f.w.toolTipAt(header);
    QVERIFY2(tip.contains(QStringLiteral("slurm: down (Not responding)<br>&nbsp;&nbsp;operator: "
                                         "draining (psu swap)")),
             qPrintable(tip));
  }

  // A fault the source gave no message for still says what it is, in the console's words.
  void aFaultWithoutAMessageIsNamed() {
    ClusterSnapshot s = tinySnapshot();
    s.now = 10000;
    s.nodes[1].gpus[1].fault = GpuView::Fault{48, "", 10000 - 120, std::nullopt};
    Fixture f(s);
    const QString tip = f.w.toolTipAt(f.tileCenter("a2", 1));
    QVERIFY2(tip.contains(QStringLiteral("Xid 48: ") + HeatmapWidget::tr("GPU fault") +
                          QStringLiteral(", for 2 min")),
             qPrintable(tip));
  }

  void highlightJobOutlinesItsGpusOnEveryNode() {
    Fixture f;
    f.w.highlightJob(5);
    const QImage img = f.grab();
    auto leftOf = [&](const char* node, int gpu) {
      const QRectF r = f.w.mapFromScene(tileRect(f.w.heatmapLayout(), node, gpu));
      return QColor(img.pixel(QPointF(r.left() - 2, r.center().y()).toPoint()));
    };
    const QColor magenta = leftOf("a1", 0);
    QCOMPARE(magenta, leftOf("a2", 0));
    QVERIFY(leftOf("a1", 1) != magenta);  // a1/1 is left of nothing highlighted
    QVERIFY(leftOf("a2", 1) != magenta);
    QCOMPARE(f.w.highlightedJob(), JobId{5});
  }

  void toolTipsDescribeGpuAndInstance() {
    Fixture f;
    const QRectF t = f.w.mapFromScene(tileRect(f.w.heatmapLayout(), "m1", 0));
    const QString tip = f.w.toolTipAt(t.topLeft() + QPointF(t.width() * 5.5 / 8, t.height() / 2));
    QVERIFY2(tip.contains(QStringLiteral("3g.40gb")) && tip.contains(QStringLiteral("job 7")),
             qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("vision")));
    const QString missing = f.w.toolTipAt(f.tileCenter("a1", 2));
    QVERIFY2(missing.contains(QStringLiteral("no telemetry")), qPrintable(missing));
    QVERIFY(f.w.toolTipAt(QPointF(-100, -100)).isEmpty());
  }

  // An MPS GPU has a gauge along its foot, green as far as its server handed out its active
  // threads (75 % of 100 %), and a tooltip naming the server's use and each client's limits; the
  // time-sliced GPU beside it with the same shares has neither.
  void mpsGpusShowTheirShares() {
    Fixture f(tinySnapshotWithMps());
    const QImage img = f.grab();
    auto footPixel = [&](const char* node, int gpu, double x) {
      const QRectF r = f.w.mapFromScene(tileRect(f.w.heatmapLayout(), node, gpu));
      return img.pixel((r.bottomLeft() + QPointF(r.width() * x, -r.height() * 0.08)).toPoint());
    };
    const QColor used = QColor(0xff2f9e44), rest = QColor(0xfff8f9fa);
    QCOMPARE(QColor(footPixel("a2", 1, 0.15)), used);
    QCOMPARE(QColor(footPixel("a2", 1, 0.6)), used);
    QCOMPARE(QColor(footPixel("a2", 1, 0.88)), rest);
    QVERIFY(QColor(footPixel("a2", 2, 0.15)) != used);
    QVERIFY(QColor(footPixel("a2", 2, 0.88)) != rest);

    const QString tip = f.w.toolTipAt(f.tileCenter("a2", 1));
    for (const char* want :
         {"MPS server: 2 of 48 clients · 75% of 100% active threads · 12288 MiB pinned · shared "
          "by one team · one GPU per node at a time",
          "job 11 · team search · MPS 25% active threads, 8192 MiB pinned",
          "job 12 · team search · MPS 50% active threads, 4096 MiB pinned"})
      QVERIFY2(tip.contains(QString::fromUtf8(want)), qPrintable(tip));
    const QString sliced = f.w.toolTipAt(f.tileCenter("a2", 2));
    QVERIFY2(sliced.contains(QStringLiteral("job 13 · team search · 0.25 GPU")),
             qPrintable(sliced));
    QVERIFY(!sliced.contains(QStringLiteral("MPS")));
    // MPS in MIG instances: the instance's server.
    const QString mig = f.w.toolTipAt(f.tileCenter("m1", 0));
    QVERIFY2(mig.contains(QString::fromUtf8("MPS server of instance @0: 1 of 48 clients · 25% of "
                                            "100% active threads · 2048 MiB pinned · shared by "
                                            "one user")),
             qPrintable(mig));
    QVERIFY2(!mig.contains(QStringLiteral("per node")), qPrintable(mig));  // not under the rule
  }

  void dropAJobOnAGpuOrANode() {
    Fixture f;
    QSignalSpy dropped(&f.w, &HeatmapWidget::jobDropped);
    QMimeData mime;
    mime.setData(QString::fromLatin1(HeatmapWidget::kJobMimeType), "42");
    // A drag as Qt delivers it: enter, moves, then the drop (Qt drops drag events to a widget
    // that did not accept the enter).
    auto enter = [&](const QMimeData& m) {
      QDragEnterEvent e(QPoint(1, 1), Qt::CopyAction, &m, Qt::LeftButton, {});
      QApplication::sendEvent(&f.w, &e);
      return e.isAccepted();
    };
    auto move = [&](QPoint at) {
      QDragMoveEvent e(at, Qt::CopyAction, &mime, Qt::LeftButton, {});
      QApplication::sendEvent(&f.w, &e);
      return e.isAccepted();
    };
    auto drop = [&](QPoint at, const QMimeData& m) {
      QDropEvent e(at, Qt::CopyAction, &m, Qt::LeftButton, {});
      QApplication::sendEvent(&f.w, &e);
    };
    QVERIFY(enter(mime));
    // Over a GPU the drop is welcome and the GPU lights up; over the background it is refused.
    const QRgb before = f.tilePixel(f.grab(), "a2", 2);
    QVERIFY(move(f.tileCenter("a2", 2)));
    QVERIFY(f.tilePixel(f.grab(), "a2", 2) != before);
    QVERIFY(!move(QPoint(1, 1)));
    QCOMPARE(f.tilePixel(f.grab(), "a2", 2), before);
    QVERIFY(move(f.tileCenter("a2", 2)));
    drop(f.tileCenter("a2", 2), mime);
    QCOMPARE(dropped.count(), 1);
    QCOMPARE(dropped.at(0).at(0).value<JobId>(), JobId{42});
    QCOMPARE(dropped.at(0).at(1).toString(), QStringLiteral("a2"));
    QCOMPARE(dropped.at(0).at(2).toInt(), 2);
    QCOMPARE(f.tilePixel(f.grab(), "a2", 2), before);  // the highlight ends with the drop

    // On a node's frame: the node, no GPU.
    const QPoint header = f.at(nodeBox(f.w.heatmapLayout(), "m1").header.center());
    QVERIFY(enter(mime));
    QVERIFY(move(header));
    drop(header, mime);
    QCOMPARE(dropped.count(), 2);
    QCOMPARE(dropped.at(1).at(1).toString(), QStringLiteral("m1"));
    QCOMPARE(dropped.at(1).at(2).toInt(), -1);

    // Anything else is not a job: refused at the door and never dropped.
    QMimeData text;
    text.setText(QStringLiteral("42"));
    QVERIFY(!enter(text));
    drop(f.tileCenter("a2", 2), text);
    QCOMPARE(dropped.count(), 2);
    QCOMPARE(HeatmapWidget::jobFromMimeData(&mime), std::optional<JobId>(42));
    std::unique_ptr<QMimeData> made(HeatmapWidget::jobMimeData(17));
    QCOMPARE(HeatmapWidget::jobFromMimeData(made.get()), std::optional<JobId>(17));
  }

  void numaZonesSplitTheTilesOfANode() {
    const ClusterSnapshot s = tinySnapshotWithZones();
    HeatmapLayout l;
    l.build(s);
    checkGeometry(s, l);
    using Zones = std::map<int, std::set<int>>;
    QCOMPARE(zonesOf(l, nodeBox(l, "a1")), (Zones{{0, {0, 1}}, {1, {2, 3}}}));
    QCOMPARE(zonesOf(l, nodeBox(l, "a2")), (Zones{{0, {0, 2}}, {1, {1, 3}}}));
    QCOMPARE(nodeBox(l, "a1").zoneCount, 2);
    QCOMPARE(nodeBox(l, "a2").zoneCount, 2);
    checkZoneFrames(l, nodeBox(l, "a1"));
    checkZoneFrames(l, nodeBox(l, "a2"));
    // No zone known (a3, m1) or one zone (r1): one block, no frames.
    QCOMPARE(zonesOf(l, nodeBox(l, "a3")), (Zones{{-1, {0, 1}}}));
    QCOMPARE(zonesOf(l, nodeBox(l, "r1")), (Zones{{0, {0, 1}}}));
    for (const char* n : {"a3", "r1", "r2", "m1"}) QCOMPARE(nodeBox(l, n).zoneCount, 0);
    QCOMPARE(l.numaZones().size(), size_t{4});
    // a1's two pairs stay in one row, set apart by the NUMA gap instead of the tile gap.
    QCOMPARE(tileRect(l, "a1", 2).left() - tileRect(l, "a1", 1).right(), l.params().numaGap);
    QCOMPARE(tileRect(l, "a1", 0).top(), tileRect(l, "a1", 3).top());
    HeatmapLayout plain;
    plain.build(tinySnapshot());
    QVERIFY(plain.numaZones().empty());
    QCOMPARE(tileRect(plain, "a1", 2).left() - tileRect(plain, "a1", 1).right(),
             plain.params().tileGap);
  }

  void numaZonesOfTheDemoHardware() {
    // The zones come through the Backend's snapshot; the hardware is only the expectation.
    const ClusterSnapshot s = demoSnapshot();
    const auto hw = demoCluster();
    HeatmapLayout l;
    l.build(s);
    checkGeometry(s, l);
    // As resources/demo-cluster.yaml declares them: a DGX H100 with GPUs 0-3 on zone 0 and 4-7
    // on zone 1, an A100 inference board with a zone per pair, an L40S server from its
    // nvidia-smi topo text (0-3, 4-7), an L4 box with no NUMA section (one zone: no frames).
    using Zones = std::map<int, std::set<int>>;
    QCOMPARE(zonesOf(l, nodeBox(l, "pod-a-01")), (Zones{{0, {0, 1, 2, 3}}, {1, {4, 5, 6, 7}}}));
    QCOMPARE(zonesOf(l, nodeBox(l, "inf-01")),
             (Zones{{0, {0, 1}}, {1, {2, 3}}, {2, {4, 5}}, {3, {6, 7}}}));
    QCOMPARE(zonesOf(l, nodeBox(l, "dev-l40s-01")), (Zones{{0, {0, 1, 2, 3}}, {1, {4, 5, 6, 7}}}));
    QCOMPARE(nodeBox(l, "dev-l4-01").zoneCount, 0);
    for (const HeatmapNodeBox& box : l.nodes()) {
      const Node* n = hw->findNode(box.name.toStdString());
      QVERIFY(n);
      const std::vector<int>& numa = n->hw->gpuNuma;
      for (int i = 0; i < box.tileCount; ++i) {
        const HeatmapTile& t = l.tiles()[static_cast<size_t>(box.firstTile + i)];
        QCOMPARE(t.numa, numa[static_cast<size_t>(t.gpu)]);
      }
      const std::set<int> distinct(numa.begin(), numa.end());
      QCOMPARE(box.zoneCount, distinct.size() > 1 ? static_cast<int>(distinct.size()) : 0);
      checkZoneFrames(l, box);
    }
    // A DGX's two zones are its two rows; the A100's four pairs a 2 x 2 of blocks, still two
    // rows of tiles.
    const HeatmapNodeBox& dgx = nodeBox(l, "pod-a-01");
    QVERIFY(l.numaZones()[static_cast<size_t>(dgx.firstZone)].rect.bottom() <
            l.numaZones()[static_cast<size_t>(dgx.firstZone + 1)].rect.top());
    const HeatmapNodeBox& inf = nodeBox(l, "inf-01");
    std::set<double> rows;
    for (int i = 0; i < inf.tileCount; ++i)
      rows.insert(l.tiles()[static_cast<size_t>(inf.firstTile + i)].rect.top());
    QCOMPARE(rows.size(), size_t{2});
  }

  void numaZonesOnScreenAndInTheToolTip() {
    Fixture f;
    const QRectF gap = tileRect(f.w.heatmapLayout(), "a1", 1);
    auto rightOfTile = [&](const QImage& img) {
      // Half a tile gap right of a1/1: the node's white fill without zones, a zone frame with.
      const QRectF r = f.w.mapFromScene(gap);
      const double half = f.w.heatmapLayout().params().tileGap / 2 * f.w.zoom();
      return img.pixel(QPointF(r.right() + half / 2, r.center().y()).toPoint());
    };
    QCOMPARE(rightOfTile(f.grab()), qRgb(255, 255, 255));
    f.w.setSnapshot(tinySnapshotWithZones());
    QVERIFY(rightOfTile(f.grab()) != qRgb(255, 255, 255));
    QVERIFY(f.w.toolTipAt(f.tileCenter("a2", 3)).contains(QStringLiteral("NUMA zone 1")));
    QVERIFY(f.w.toolTipAt(f.tileCenter("a2", 2)).contains(QStringLiteral("NUMA zone 0")));
    const QPoint header = f.at(nodeBox(f.w.heatmapLayout(), "a1").header.center());
    QVERIFY(f.w.toolTipAt(header).contains(QStringLiteral("2 NUMA zones")));
    QVERIFY(!f.w.toolTipAt(f.tileCenter("m1", 0)).contains(QStringLiteral("NUMA")));
    f.w.setSnapshot(tinySnapshot());
    QVERIFY(f.w.heatmapLayout().numaZones().empty());
  }

  void trackpadPinchZoomsAroundTheFingers() {
    Fixture f;
    const QPointF at = f.tileCenter("m1", 0);
    const QPointF scene = f.w.mapToScene(at);
    const double zoom = f.w.zoom();
    auto gesture = [&](Qt::NativeGestureType type, double value) {
      QNativeGestureEvent e(type, QPointingDevice::primaryPointingDevice(), 2, at, at,
                            f.w.mapToGlobal(at), value, QPointF());
      QApplication::sendEvent(&f.w, &e);
      return e.isAccepted();
    };
    gesture(Qt::BeginNativeGesture, 0);
    QVERIFY(gesture(Qt::ZoomNativeGesture, 0.5));  // 50 % larger
    QVERIFY(qAbs(f.w.zoom() / zoom - 1.5) < 1e-9);
    QVERIFY((f.w.mapToScene(at) - scene).manhattanLength() < 1e-6);
    QCOMPARE(f.w.heatmapLayout().hitTest(f.w.mapToScene(at))->node, QStringLiteral("m1"));
    QVERIFY(gesture(Qt::ZoomNativeGesture, -1.0 / 3));  // and back
    QVERIFY(qAbs(f.w.zoom() / zoom - 1) < 1e-9);
    QVERIFY((f.w.mapToScene(at) - scene).manhattanLength() < 1e-6);
    gesture(Qt::RotateNativeGesture, 15);  // not a zoom
    gesture(Qt::EndNativeGesture, 0);
    QVERIFY(qAbs(f.w.zoom() / zoom - 1) < 1e-9);
  }

  void touchPinchZoomsAndPans() {
    Fixture f;
    const QPointF at = f.tileCenter("a2", 1);
    const QPointF scene = f.w.mapToScene(at);
    const double zoom = f.w.zoom();
    QPinchGesture pinch;
    pinch.setChangeFlags(QPinchGesture::ScaleFactorChanged);
    pinch.setScaleFactor(2);
    pinch.setCenterPoint(f.w.mapToGlobal(at));
    QGestureEvent spread({&pinch});
    QApplication::sendEvent(&f.w, &spread);
    QVERIFY(spread.isAccepted(&pinch));
    QVERIFY(qAbs(f.w.zoom() / zoom - 2) < 1e-9);
    QVERIFY((f.w.mapToScene(at) - scene).manhattanLength() < 1e-6);
    // The two fingers move 30 px right together: the map follows them.
    pinch.setChangeFlags(QPinchGesture::CenterPointChanged);
    pinch.setLastCenterPoint(f.w.mapToGlobal(at));
    pinch.setCenterPoint(f.w.mapToGlobal(at + QPointF(30, 0)));
    QGestureEvent slide({&pinch});
    QApplication::sendEvent(&f.w, &slide);
    QVERIFY((f.w.mapFromScene(scene) - (at + QPointF(30, 0))).manhattanLength() < 1e-6);
    QVERIFY(qAbs(f.w.zoom() / zoom - 2) < 1e-9);
  }

  void dragPreviewRoundTrip() {
    Fixture f;
    // The mime data the queue table gives a dragged pending job.
    JobTableModel jobs;
    JobInfo j;
    j.row.job.id = 42;
    j.row.job.name = "probe";
    j.row.job.perTask = {GpuRequest::Kind::Whole, 1, {}, 0, 0};
    j.row.state = JobState::Pending;
    jobs.setJobs({j}, 0);
    std::unique_ptr<QMimeData> mime(jobs.mimeData({jobs.index(0, 0)}));
    QVERIFY(mime);
    QSignalSpy asked(&f.w, &HeatmapWidget::dropPreviewRequested);
    QSignalSpy dropped(&f.w, &HeatmapWidget::jobDropped);
    auto enter = [&] {
      QDragEnterEvent e(QPoint(1, 1), Qt::MoveAction, mime.get(), Qt::LeftButton, {});
      QApplication::sendEvent(&f.w, &e);
      return e.isAccepted();
    };
    auto move = [&](QPoint at) {
      QDragMoveEvent e(at, Qt::MoveAction, mime.get(), Qt::LeftButton, {});
      QApplication::sendEvent(&f.w, &e);
      return e.isAccepted();
    };
    auto targetOf = [&](int call) { return asked.at(call).at(1).value<HeatmapDropTarget>(); };
    auto greenish = [](QRgb c) { return qGreen(c) > qRed(c) + 30 && qGreen(c) > qBlue(c) + 30; };
    auto reddish = [](QRgb c) { return qRed(c) > qGreen(c) + 60 && qRed(c) > qBlue(c) + 60; };
    // The callout's colored strip, just inside its left edge, below right of the cursor.
    auto strip = [](const QImage& img, QPoint cursor) {
      return img.pixel(cursor + QPoint(18, 24));
    };
    const QImage plain = f.grab();

    // Across a1/0 to a2/2 without resting: one question, about where the cursor rests, after
    // the pause - not one per GPU passed.
    QVERIFY(enter());
    QVERIFY(move(f.tileCenter("a1", 0)));
    QVERIFY(move(f.tileCenter("a2", 2)));
    QVERIFY(move(f.tileCenter("a2", 2) + QPoint(1, 1)));  // the same GPU
    QCOMPARE(asked.count(), 0);
    QTRY_COMPARE(asked.count(), 1);
    QTest::qWait(2 * HeatmapWidget::kDropPreviewDelayMs);
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.at(0).at(0).value<JobId>(), JobId{42});
    const HeatmapDropTarget first = targetOf(0);
    QCOMPARE(first.node, QStringLiteral("a2"));
    QCOMPARE(first.gpu, 2);
    const QPoint cursor = f.tileCenter("a2", 2) + QPoint(1, 1);
    // Asked, not answered: the target is lit, neither green nor red, the callout says so.
    QVERIFY(!f.w.dropPreview());
    QImage img = f.grab();
    QVERIFY(!greenish(f.tilePixel(img, "a2", 2)) && !reddish(f.tilePixel(img, "a2", 2)));
    QVERIFY(f.tilePixel(img, "a2", 2) != f.tilePixel(plain, "a2", 2));
    QVERIFY(qRed(strip(img, cursor)) > 200 && qBlue(strip(img, cursor)) < 80);  // orange

    // The engine would start it: green, and its words beside the cursor.
    f.w.setDropPreview(first, true, QStringLiteral("Would start on a2[2]"));
    QVERIFY(f.w.dropPreview() && f.w.dropPreview()->ok);
    QCOMPARE(f.w.dropPreview()->text, QStringLiteral("Would start on a2[2]"));
    img = f.grab();
    QVERIFY(greenish(f.tilePixel(img, "a2", 2)));
    QVERIFY(greenish(strip(img, cursor)));
    QCOMPARE(f.tilePixel(img, "a1", 1), f.tilePixel(plain, "a1", 1));

    // On to a1/1: a new target, a new generation. A late answer about a2/2 changes nothing.
    QVERIFY(move(f.tileCenter("a1", 1)));
    QVERIFY(!f.w.dropPreview());
    f.w.setDropPreview(first, false, QStringLiteral("late"));
    QVERIFY(!f.w.dropPreview());
    QCOMPARE(f.tilePixel(f.grab(), "a2", 2), f.tilePixel(plain, "a2", 2));
    QTRY_COMPARE(asked.count(), 2);
    const HeatmapDropTarget second = targetOf(1);
    QCOMPARE(second.node, QStringLiteral("a1"));
    QCOMPARE(second.gpu, 1);
    QVERIFY(second.generation != first.generation);
    f.w.setDropPreview(second, false, QStringLiteral("Would not start there now"));
    QVERIFY(f.w.dropPreview() && !f.w.dropPreview()->ok);
    img = f.grab();
    QVERIFY(reddish(f.tilePixel(img, "a1", 1)));
    QVERIFY(reddish(strip(img, f.tileCenter("a1", 1))));

    // A new snapshot while hovering keeps the target and its verdict.
    ClusterSnapshot next = tinySnapshot();
    occupy(next.nodes[1].gpus[3], 9, "nlp", 0.3);
    f.w.setSnapshot(next);
    QVERIFY(f.w.dropPreview() && !f.w.dropPreview()->ok);
    QVERIFY(reddish(f.tilePixel(f.grab(), "a1", 1)));

    // Leaving ends it all; an answer after that is dropped too.
    QDragLeaveEvent leave;
    QApplication::sendEvent(&f.w, &leave);
    QVERIFY(!f.w.dropPreview());
    f.w.setDropPreview(second, true, QStringLiteral("late"));
    QVERIFY(!f.w.dropPreview());
    QCOMPARE(f.tilePixel(f.grab(), "a1", 1), f.tilePixel(plain, "a1", 1));

    // A node's frame is a target too (gpu -1); the drop ends the preview and is the pin.
    const QPoint header = f.at(nodeBox(f.w.heatmapLayout(), "m1").header.center());
    QVERIFY(enter());
    QVERIFY(move(header));
    QTRY_COMPARE(asked.count(), 3);
    QCOMPARE(targetOf(2).node, QStringLiteral("m1"));
    QCOMPARE(targetOf(2).gpu, -1);
    f.w.setDropPreview(targetOf(2), true, QStringLiteral("Would start on m1[0]"));
    QVERIFY(f.w.dropPreview());
    QDropEvent drop(header, Qt::MoveAction, mime.get(), Qt::LeftButton, {});
    QApplication::sendEvent(&f.w, &drop);
    QCOMPARE(dropped.count(), 1);
    QCOMPARE(dropped.at(0).at(1).toString(), QStringLiteral("m1"));
    QVERIFY(!f.w.dropPreview());
    QTest::qWait(2 * HeatmapWidget::kDropPreviewDelayMs);
    QCOMPARE(asked.count(), 3);  // nothing asked after the drop
  }

  void pinPreviewWordsTheEnginesAnswer() {
    const ClusterSnapshot s = tinySnapshot();
    // The dry run starts the job (and another one): its own placement is the text.
    CommandResult starts;
    starts.impact.started = {9, 42};
    starts.impact.placementChanges = {{9, "a2[3]"}, {42, "a2[2]"}};
    HeatmapDropPreview v = heatmapPinPreview(42, {QStringLiteral("a2"), 2, 1}, starts, s);
    QVERIFY(v.ok);
    QVERIFY2(v.text.contains(QStringLiteral("a2[2]")) && !v.text.contains(QStringLiteral("a2[3]")),
             qPrintable(v.text));
    starts.impact.preempted = {6};
    starts.impact.gpuHoursLost = 2.5;
    v = heatmapPinPreview(42, {QStringLiteral("a2"), 2, 1}, starts, s);
    QVERIFY(v.ok);
    QVERIFY2(v.text.contains(QStringLiteral("preempting 1 job")) &&
                 v.text.contains(QStringLiteral("2.5")),
             qPrintable(v.text));
    // Refused: the engine's words.
    v = heatmapPinPreview(42, {QStringLiteral("a2"), 2, 1},
                          QStringLiteral("job 42 needs 8 GPUs; the pin names 1"), s);
    QVERIFY(!v.ok);
    QVERIFY2(v.text.contains(QStringLiteral("needs 8 GPUs")), qPrintable(v.text));
    // Accepted, but the job would still wait: why, as the snapshot shows it.
    const CommandResult waits;
    v = heatmapPinPreview(42, {QStringLiteral("a3"), -1, 1}, waits, s);
    QVERIFY(!v.ok);
    QVERIFY2(v.text.contains(QStringLiteral("a3 is draining")), qPrintable(v.text));
    v = heatmapPinPreview(42, {QStringLiteral("a1"), 0, 1}, waits, s);
    QVERIFY2(!v.ok && v.text.contains(QStringLiteral("job 5")), qPrintable(v.text));
    v = heatmapPinPreview(42, {QStringLiteral("a2"), 2, 1}, waits, s);
    QVERIFY(!v.ok && !v.text.isEmpty());
  }

  void legendFollowsTheLayer() {
    HeatmapWidget w;
    w.setSnapshot(tinySnapshot());
    QCOMPARE(w.legend().size(), size_t{5});  // 0 .. 100 %
    w.setLayer(HeatmapLayer::Utilization);
    QVERIFY(w.legend().back().hatched);
    w.setLayer(HeatmapLayer::Team);
    QCOMPARE(w.legend().front().color, heatmapTeamColor(QStringLiteral("nlp")));
    w.setLayer(HeatmapLayer::Health);
    QCOMPARE(w.legend().size(), size_t{5});
  }

  // What lies under the tiles is kept between paints (HeatmapWidget::Backdrop). A widget that
  // painted before each change must paint what a widget painting for the first time paints in
  // the end state: after a snapshot whose node went down (its outline's color), a zoom alone, a
  // pan alone (a zoom and its inverse about another point) and a resize, on the Allocation
  // layer and on Health.
  void keptBackdropFollowsNodesAndTheView() {
    ClusterSnapshot down = tinySnapshot();
    down.nodes[1].state = "down";  // a2
    const auto scale = [](const HeatmapWidget& w) {
      return w.mapFromScene(QPointF(1, 0)).x() - w.mapFromScene(QPointF(0, 0)).x();
    };
    using Step = std::function<void(HeatmapWidget&)>;
    const std::vector<std::pair<QString, Step>> steps{
        {"node down", [&](HeatmapWidget& w) { w.setSnapshot(down); }},
        {"zoom alone", [](HeatmapWidget& w) { w.zoomAt(w.mapFromScene(QPointF(0, 0)), 2); }},
        {"pan alone",
         [&](HeatmapWidget& w) {
           const double before = scale(w);
           w.zoomAt(QPointF(100, 100), 2);
           w.zoomAt(QPointF(300, 200), 0.5);
           QCOMPARE(scale(w), before);
         }},
        {"resize", [](HeatmapWidget& w) { w.resize(900, 560); }}};
    for (HeatmapLayer layer : {HeatmapLayer::Allocation, HeatmapLayer::Health}) {
      Fixture kept;
      kept.w.setLayer(layer);
      QVERIFY(!kept.grab().isNull());  // paints, and keeps the backdrop
      for (size_t done = 0; done < steps.size(); ++done) {
        steps[done].second(kept.w);
        HeatmapWidget first;  // never painted before
        first.setLegendVisible(false);
        first.resize(800, 500);
        first.setSnapshot(tinySnapshot());
        first.setLayer(layer);
        first.fitToView();
        for (size_t s = 0; s <= done; ++s) steps[s].second(first);
        QVERIFY2(kept.grab() == first.grab().toImage().convertToFormat(QImage::Format_RGB32),
                 qPrintable(steps[done].first));
      }
    }
  }

  void paintsTheDemoClusterAtEveryZoom() {
    Fixture f(demoSnapshot());
    f.w.setLegendVisible(true);
    for (HeatmapLayer layer : {HeatmapLayer::Allocation, HeatmapLayer::Team, HeatmapLayer::Gap}) {
      f.w.setLayer(layer);
      f.w.fitToView();
      QVERIFY(!f.grab().isNull());
      for (int i = 0; i < 4; ++i) {
        f.w.zoomAt(QPointF(400, 250), 3);
        QVERIFY(!f.grab().isNull());
      }
    }
  }
};

QTEST_MAIN(TstHeatmap)
#include "tst_heatmap.moc"
