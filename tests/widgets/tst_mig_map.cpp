// The MIG map, the fleet summary and the repartition editor. Fixtures are hand-built GpuViews
// (A100-SXM4-80GB and A30 from the built-in catalog) plus the demo cluster's snapshot from an
// in-process Backend. Expected slice states and fleet counts are worked out by hand in the
// comments from the catalog's profile tables, never read back from the code under test; the
// editor's refusal reasons are compared with what the MIG validator says of the same layout.
#include <QDropEvent>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "../service/backend_test_util.h"
#include "../service/demo_backend.h"
#include "clusterspec/cluster_spec.h"
#include "mig/mig_validate.h"
#include "mig_editor.h"
#include "mig_map_widget.h"
#include "service/backend.h"
#include "workload/workload_spec.h"

using namespace tessera;
using namespace tessera::widgets;

namespace {

constexpr const char* kA100 = "A100-SXM4-80GB";

GpuView migGpu(int index, const char* model, const char* layout,
               std::vector<GpuView::Occupant> occupants = {}) {
  GpuView v;
  v.index = index;
  v.model = model;
  v.sharing = "mig";
  v.migLayout = layout;
  v.occupants = std::move(occupants);
  return v;
}

GpuView::Occupant migJob(JobId job, const char* profile, int start) {
  GpuView::Occupant o;
  o.job = job;
  o.migProfile = profile;
  o.team = "vision";
  o.migStart = start;
  return o;
}

// n1/0: A100, busy 3g at slices 4-7 (job 42), idle 1g at slice 0.
// n1/1: A100, all idle: 2g at 0-1, 1g at 2 and 3.
// n2/0: A30, busy 2g at slices 0-1 (job 7).
// n2/1: a whole (non-MIG) GPU, which the map must leave out.
ClusterSnapshot fixture() {
  ClusterSnapshot s;
  NodeView n1;
  n1.name = "n1";
  n1.gpus.push_back(migGpu(0, kA100, "3g.40gb@4*,1g.10gb@0", {migJob(42, "3g.40gb", 4)}));
  n1.gpus.push_back(migGpu(1, kA100, "2g.20gb@0,1g.10gb@2,1g.10gb@3"));
  NodeView n2;
  n2.name = "n2";
  n2.gpus.push_back(migGpu(0, "A30", "2g.12gb@0*", {migJob(7, "2g.12gb", 0)}));
  GpuView whole;
  whole.index = 1;
  whole.model = "H100";
  whole.sharing = "exclusive";
  n2.gpus.push_back(whole);
  s.nodes = {n1, n2};
  return s;
}

const std::vector<std::string> kDemand = {"3g.40gb", "1g.10gb"};

const MigGeometry& geometry(const char* model) {
  return *GpuCatalog::builtin().find(model)->mig;
}

MigLayout layoutOf(const char* model, const char* text) {
  auto l = parseMigLayout(*GpuCatalog::builtin().find(model), text);
  if (!l) qFatal("%s", l.error().message.c_str());
  return *l;
}

// A pixel inside a rectangle's top-left corner: clear of borders and of the centred labels.
QColor cornerPixel(const QImage& img, const QRect& r) {
  return img.pixelColor(r.topLeft() + QPoint(4, 4));
}

std::unique_ptr<Backend> openDemoBackend(const QTemporaryDir& dir) {
  return test::openDemoBackend(dir.filePath("mig.db"));
}

// A drag entering `target` and dropping at `pos`, as QDrag delivers it: Qt hands the drop to the
// widget that accepted the drag's enter event, so the enter is part of the simulation.
void sendDrop(QWidget* target, QPoint pos, const QString& profile, bool& accepted) {
  QMimeData mime;
  mime.setData(QString::fromLatin1(MigEditor::kProfileMime), profile.toUtf8());
  QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(target, &enter);
  QVERIFY(enter.isAccepted());
  QDragMoveEvent move(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(target, &move);
  QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(target, &drop);
  accepted = drop.isAccepted();
}

}  // namespace

class TestMigMap : public QObject {
  Q_OBJECT
 private slots:
  void sliceStates();
  void demandNamesPerModel();
  void mapListsMigGpus();
  void mapDrawsInstancesAtTheirSlices();
  void strandedDrawnDifferently();
  void mapTooltipAndSelection();
  void suggestedRepartition();
  void fleetCounts();
  void demoClusterSnapshot();
  void editorLoadsGpu();
  void editorAcceptsValidDrop();
  void editorRefusesInvalidDrop();
  void editorDropEvents();
  void editorBusyPinned();
  void editorMoveAndDelete();
  void editorInitialLayout();
  void editorButtonsAndImpact();
  void editorA30();
};

void TestMigMap::sliceStates() {
  const MigGeometry& g = geometry(kA100);
  using S = MigSliceState;
  // The doc's example: 1g at slices 1 and 5, demand only 3g -> all 6 free slices stranded.
  const MigLayout l = layoutOf(kA100, "1g.10gb@1,1g.10gb@5");
  const std::vector<int> only3g = {g.profileIndex("3g.40gb")};
  QCOMPARE(migSliceStates(g, l, only3g),
           (std::vector<S>{S::Stranded, S::Idle, S::Stranded, S::Stranded, S::Stranded, S::Idle,
                           S::Stranded, S::Stranded}));
  // Demand 1g.10gb: starts 0..6, so only slice 7 cannot host one.
  const std::vector<int> only1g = {g.profileIndex("1g.10gb")};
  QCOMPARE(migSliceStates(g, l, only1g), (std::vector<S>{S::Free, S::Idle, S::Free, S::Free,
                                                         S::Free, S::Idle, S::Free, S::Stranded}));
  // Busy instance; demand 2g (starts 0,2,4): @0 blocked by the 1g, @2 fits -> slice 1 stranded.
  const MigLayout busy = layoutOf(kA100, "3g.40gb@4*,1g.10gb@0");
  const std::vector<int> only2g = {g.profileIndex("2g.20gb")};
  QCOMPARE(migSliceStates(g, busy, only2g), (std::vector<S>{S::Idle, S::Stranded, S::Free, S::Free,
                                                            S::Busy, S::Busy, S::Busy, S::Busy}));
  // Nothing demanded on this model: every free slice is stranded.
  QCOMPARE(migSliceStates(g, busy, {}),
           (std::vector<S>{S::Idle, S::Stranded, S::Stranded, S::Stranded, S::Busy, S::Busy,
                           S::Busy, S::Busy}));
}

void TestMigMap::demandNamesPerModel() {
  const MigGeometry& a100 = geometry(kA100);
  const MigGeometry& a30 = geometry("A30");
  QCOMPARE(migDemandProfiles(a100, kDemand),
           (std::vector<int>{a100.profileIndex("3g.40gb"), a100.profileIndex("1g.10gb")}));
  QVERIFY(migDemandProfiles(a30, kDemand).empty());  // names are per model
  // No demand known: every profile without +me (A30: 1g.6gb, 2g.12gb, 4g.24gb).
  QCOMPARE(migDemandProfiles(a30, {}),
           (std::vector<int>{a30.profileIndex("1g.6gb"), a30.profileIndex("2g.12gb"),
                             a30.profileIndex("4g.24gb")}));
}

void TestMigMap::mapListsMigGpus() {
  MigMapWidget map;
  map.setSnapshot(fixture());
  QCOMPARE(map.gpuNames(), (QStringList{"n1/0", "n1/1", "n2/0"}));
  QCOMPARE(map.gpu(2)->model->id, std::string("A30-24GB"));
  // Scrollable: the canvas is as tall as its rows and lives in a scroll area.
  QCOMPARE(map.canvas()->height(), 2 * MigMapWidget::kMargin + 3 * MigMapWidget::kRowHeight);
  QVERIFY(qobject_cast<QScrollArea*>(map.canvas()->parentWidget()->parentWidget()));
  // 4 slices on the A30, drawn over the same bar width as the 8 of the A100.
  QCOMPARE(map.sliceRect(2, 3).right(), map.sliceRect(0, 7).right());
  QCOMPARE(map.sliceRect(2, 0).width(), 2 * map.sliceRect(0, 0).width());
}

void TestMigMap::mapDrawsInstancesAtTheirSlices() {
  MigMapWidget map;
  map.resize(800, 400);
  map.setSnapshot(fixture());
  map.setDemand({"2g.20gb"});
  const QImage img = map.canvas()->grab().toImage();
  const QColor busy = cornerPixel(img, map.sliceRect(0, 4));
  const QColor idle = cornerPixel(img, map.sliceRect(0, 0));
  const QColor free = cornerPixel(img, map.sliceRect(0, 2));
  QVERIFY(busy != free);
  QVERIFY(idle != free);
  QVERIFY(busy != idle);
  // The busy 3g covers slices 4-7 and nothing left of them.
  for (int s = 4; s < 8; ++s) QCOMPARE(cornerPixel(img, map.sliceRect(0, s)), busy);
  QCOMPARE(cornerPixel(img, map.sliceRect(0, 3)), free);
  // The instance is one block: the pixel between slices 5 and 6 is fill, not a slice border.
  const QRect r5 = map.sliceRect(0, 5);
  QCOMPARE(img.pixelColor(r5.right(), r5.top() + 4), busy);
  // On n1/1 the idle 2g covers slices 0-1 and the 1g instances slices 2 and 3.
  for (int s = 0; s < 4; ++s) QCOMPARE(cornerPixel(img, map.sliceRect(1, s)), idle);
  QCOMPARE(map.instanceRect(0, layoutOf(kA100, "3g.40gb@4")[0]),
           map.sliceRect(0, 4).united(map.sliceRect(0, 7)));
}

void TestMigMap::strandedDrawnDifferently() {
  MigMapWidget map;
  map.setSnapshot(fixture());
  // Demand 2g: on n1/0 slice 1 is stranded (2g may start at 0, 2, 4 only), slices 2-3 usable.
  map.setDemand({"2g.20gb"});
  QCOMPARE(map.sliceState(0, 1), MigSliceState::Stranded);
  QCOMPARE(map.sliceState(0, 2), MigSliceState::Free);
  QImage img = map.canvas()->grab().toImage();
  const QColor free = cornerPixel(img, map.sliceRect(0, 2));
  QVERIFY(cornerPixel(img, map.sliceRect(0, 1)) != free);
  // The whole slice reads as stranded, not just one pixel of it: no pixel of its interior is
  // the free fill.
  const QRect r1 = map.sliceRect(0, 1).adjusted(2, 2, -2, -2);
  int freePixels = 0;
  for (int y = r1.top(); y <= r1.bottom(); ++y)
    for (int x = r1.left(); x <= r1.right(); ++x) freePixels += img.pixelColor(x, y) == free;
  QCOMPARE(freePixels, 0);
  // Demand 1g: slice 1 can host a 1g, so it is drawn like any usable free slice.
  map.setDemand({"1g.10gb"});
  QCOMPARE(map.sliceState(0, 1), MigSliceState::Free);
  img = map.canvas()->grab().toImage();
  QCOMPARE(cornerPixel(img, map.sliceRect(0, 1)), free);
  // The A30 has no 1g.10gb: both of its free slices are stranded.
  QCOMPARE(map.sliceState(2, 2), MigSliceState::Stranded);
  QCOMPARE(map.sliceState(2, 3), MigSliceState::Stranded);
}

void TestMigMap::mapTooltipAndSelection() {
  MigMapWidget map;
  map.setSnapshot(fixture());
  map.setDemand({"2g.20gb"});
  const QString tip = map.toolTipAt(map.sliceRect(0, 6).center());
  QVERIFY2(tip.contains("3g.40gb@4") && tip.contains("job 42") && tip.contains("vision"),
           qPrintable(tip));
  QVERIFY(map.toolTipAt(map.sliceRect(0, 1).center()).contains("stranded"));
  QVERIFY(!map.toolTipAt(map.sliceRect(0, 2).center()).contains("stranded"));

  QSignalSpy spy(&map, &MigMapWidget::gpuSelected);
  QTest::mouseClick(map.canvas(), Qt::LeftButton, {}, map.sliceRect(1, 3).center());
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy.at(0).at(0).toString(), QString("n1/1"));
  QCOMPARE(map.selectedGpu(), QString("n1/1"));
  QVERIFY(map.selectGpu("n2/0"));
  QCOMPARE(spy.count(), 2);
  QVERIFY(!map.selectGpu("n2/1"));  // not in MIG mode
  // A new snapshot keeps the selection by name.
  map.setSnapshot(fixture());
  QCOMPARE(map.selectedGpu(), QString("n2/0"));
}

void TestMigMap::suggestedRepartition() {
  const GpuModel& a100 = *GpuCatalog::builtin().find(kA100);
  const MigGeometry& g = *a100.mig;
  const auto demand = migDemandProfiles(g, kDemand);
  // n1/0: busy 3g@4 stays; slices 0-3 take 3g@0 or four 1g (both cover all 8 slices); the
  // four 1g keep the idle 1g@0, so they win.
  auto plan = migSuggestedRepartition(a100, layoutOf(kA100, "3g.40gb@4*,1g.10gb@0"), demand);
  QVERIFY(plan);
  QCOMPARE(formatMigLayout(a100, plan->target, true),
           std::string("1g.10gb@0,1g.10gb@1,1g.10gb@2,1g.10gb@3,3g.40gb@4*"));
  // n1/1: covering 8 slices while keeping 1g@2 and 1g@3 leaves only 1g@0, 1g@1 and 3g@4.
  plan = migSuggestedRepartition(a100, layoutOf(kA100, "2g.20gb@0,1g.10gb@2,1g.10gb@3"), demand);
  QVERIFY(plan);
  QCOMPARE(formatMigLayout(a100, plan->target, true),
           std::string("1g.10gb@0,1g.10gb@1,1g.10gb@2,1g.10gb@3,3g.40gb@4"));
  QCOMPARE(plan->keptInstances, 2);
}

void TestMigMap::fleetCounts() {
  MigMapWidget map;
  map.setSnapshot(fixture());
  map.setDemand(kDemand);
  // Hand-computed from the catalog (A100-80GB: 7 compute slices, CE 7, DEC 5, one +me; A30:
  // 4 compute slices, CE 4, DEC 4). "now" = idle instances / greedy max additional per GPU;
  // "after" = idle + addable in the suggested layouts (see suggestedRepartition):
  //   n1/0 = 1g@0..3 + 3g@4* and n1/1 = 1g@0..3 + 3g@4; the A30 has no demanded profile, so
  //   it stays as it is.
  // Per GPU, addable now: n1/0 (free 1,2,3; compute 4/7): 1g.10gb 3, +me 1, 1g.20gb 1 (@2),
  //   2g 1 (@2), 3g 0. n1/1 (free 4-7; compute 4/7): 1g.10gb 3 (no 1g at 7), +me 1,
  //   1g.20gb 2 (@4,@6), 2g 1 (@4), 3g 1 (@4). n2/0 (free 2,3; compute 2/4, DEC 2/4):
  //   1g.6gb 2, +me 1, 2g 1, 2g+me 1, 4g 0.
  struct Want {
    const char* model;
    const char* profile;
    int gpus, idle, addable, after;
  };
  const std::vector<Want> want = {
      {kA100, "1g.10gb", 2, 3, 6, 8},         {kA100, "1g.10gb+me", 2, 0, 2, 0},
      {kA100, "1g.20gb", 2, 0, 3, 0},         {kA100, "2g.20gb", 2, 1, 2, 0},
      {kA100, "3g.40gb", 2, 0, 1, 1},         {kA100, "4g.40gb", 2, 0, 0, 0},
      {kA100, "7g.80gb", 2, 0, 0, 0},         {"A30-24GB", "1g.6gb", 1, 0, 2, 2},
      {"A30-24GB", "1g.6gb+me", 1, 0, 1, 1},  {"A30-24GB", "2g.12gb", 1, 0, 1, 1},
      {"A30-24GB", "2g.12gb+me", 1, 0, 1, 1}, {"A30-24GB", "4g.24gb", 1, 0, 0, 0},
  };
  const auto& rows = map.fleetSummary()->rows();
  QCOMPARE(rows.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const QString at = QString("row %1 (%2)").arg(i).arg(want[i].profile);
    QVERIFY2(rows[i].model == want[i].model && rows[i].profile == want[i].profile, qPrintable(at));
    QVERIFY2(rows[i].gpus == want[i].gpus, qPrintable(at));
    QVERIFY2(rows[i].idleNow == want[i].idle, qPrintable(at));
    QVERIFY2(rows[i].addableNow == want[i].addable, qPrintable(at));
    QVERIFY2(rows[i].afterRepartition == want[i].after, qPrintable(at));
  }
  // The table shows the same figures, with "available now" = idle + addable.
  const MigFleetSummary* m = map.fleetSummary();
  QCOMPARE(m->columnCount(), int(MigFleetSummary::ColumnCount));
  QCOMPARE(m->data(m->index(0, MigFleetSummary::Available)).toInt(), 9);
  QCOMPARE(m->data(m->index(0, MigFleetSummary::AfterRepartition)).toInt(), 8);
  QCOMPARE(m->data(m->index(4, MigFleetSummary::Profile)).toString(), QString("3g.40gb"));
}

void TestMigMap::demoClusterSnapshot() {
  QTemporaryDir dir;
  auto backend = openDemoBackend(dir);
  const ClusterSnapshot snap =
      test::ok(test::await<ClusterSnapshot>([&](auto r) { backend->snapshot(r); }));
  MigMapWidget map;
  map.setSnapshot(snap);
  // inf-01..06: GPUs 0-5 and 7 in MIG mode, plus GPU 6 on inf-05 and inf-06.
  QCOMPARE(map.gpuCount(), 6 * 7 + 2);
  QVERIFY(map.gpuNames().contains("inf-01/0"));
  QVERIFY(!map.gpuNames().contains("inf-01/6"));
  QVERIFY(map.gpuNames().contains("inf-05/6"));
  // Idle 1g.10gb with no jobs running: 2 on GPUs 0-1, 7 on GPUs 2-3 per node -> 18 x 6.
  const auto& rows = map.fleetSummary()->rows();
  const auto it = std::find_if(rows.begin(), rows.end(),
                               [](const MigFleetRow& r) { return r.profile == "1g.10gb"; });
  QVERIFY(it != rows.end());
  QCOMPARE(it->gpus, 44);
  QCOMPARE(it->idleNow, 108);
  // The layout of inf-01/0 is drawn as in the spec: 2g at slices 0-1, 3g at 4-7.
  QCOMPARE(map.sliceState(0, 0), MigSliceState::Idle);
  QCOMPARE(map.sliceState(0, 7), MigSliceState::Idle);
  backend->stop();
}

// ---------------------------------------------------------------------------------------------
// The editor

namespace {

// The editor on n1/0: busy 3g.40gb@4 (job 42), idle 1g.10gb@0.
void loadBusyGpu(MigEditor& e) {
  const ClusterSnapshot s = fixture();
  QVERIFY(e.setGpu(s.nodes[0].gpus[0], "n1/0"));
}

// What the MIG validator says of `text` on an A100 (the editor must refuse with exactly this).
std::string validatorReason(const char* text) {
  const GpuModel& m = *GpuCatalog::builtin().find(kA100);
  const MigLayout l = layoutOf(kA100, text);
  const MigVerdict v = validateMigLayout(*m.mig, l);
  if (v.ok()) qFatal("fixture layout %s is valid", text);
  return explainMigVerdict(m, l, v);
}

QLabel* visibleReasonLabel(const MigEditor& e, const QString& reason) {
  for (QLabel* l : e.findChildren<QLabel*>())
    if (l->text() == reason) return l;
  return nullptr;
}

}  // namespace

void TestMigMap::editorLoadsGpu() {
  MigEditor e;
  loadBusyGpu(e);
  QCOMPARE(e.layoutText(), QString("1g.10gb@0,3g.40gb@4"));
  QCOMPARE(e.currentLayoutText(), QString("1g.10gb@0,3g.40gb@4*"));
  QVERIFY(!e.modified());
  QCOMPARE(e.profileNames().size(), 7);
  QCOMPARE(e.profilePalette()->count(), 7);
  QVERIFY(e.instanceAt(5) && e.instanceAt(5)->busy);
  QVERIFY(e.instanceAt(0) && !e.instanceAt(0)->busy);
  QVERIFY(!e.instanceAt(2));
  // Not a MIG GPU: refused, nothing loaded.
  QSignalSpy refused(&e, &MigEditor::refused);
  GpuView whole;
  whole.model = "H100";
  QVERIFY(!e.setGpu(whole, "n2/1"));
  QCOMPARE(refused.count(), 1);
  QVERIFY(e.layoutText().isEmpty());
}

void TestMigMap::editorAcceptsValidDrop() {
  MigEditor e;
  loadBusyGpu(e);
  QSignalSpy changed(&e, &MigEditor::layoutChanged);
  QSignalSpy refused(&e, &MigEditor::refused);
  QVERIFY(e.dropProfile("2g.20gb", 2));
  QCOMPARE(e.layoutText(), QString("1g.10gb@0,2g.20gb@2,3g.40gb@4"));
  QCOMPARE(changed.count(), 1);
  QCOMPARE(changed.at(0).at(0).toString(), e.layoutText());
  QCOMPARE(refused.count(), 0);
  QVERIFY(e.modified());
  // The busy instance is still busy in the composed layout.
  QVERIFY(e.instanceAt(4)->busy);
}

void TestMigMap::editorRefusesInvalidDrop() {
  MigEditor e;
  loadBusyGpu(e);
  QSignalSpy refused(&e, &MigEditor::refused);
  const QString before = e.layoutText();
  // 3g@0 overlaps the idle 1g@0 (check 2).
  QVERIFY(!e.dropProfile("3g.40gb", 0));
  QCOMPARE(e.layoutText(), before);
  const QString overlap = QString::fromStdString(validatorReason("1g.10gb@0,3g.40gb@4*,3g.40gb@0"));
  QCOMPARE(refused.count(), 1);
  QCOMPARE(refused.at(0).at(0).toString(), overlap);
  QVERIFY(overlap.contains("check 2"));
  QCOMPARE(e.refusal(), overlap);
  QVERIFY(visibleReasonLabel(e, overlap));
  // A start the profile may not use (check 1).
  QVERIFY(!e.dropProfile("3g.40gb", 2));
  const QString start = QString::fromStdString(validatorReason("1g.10gb@0,3g.40gb@4*,3g.40gb@2"));
  QVERIFY(start.contains("check 1"));
  QCOMPARE(e.refusal(), start);
  // A second +me instance (check 3 or 4, whichever the validator reports).
  QVERIFY(e.dropProfile("1g.10gb+me", 1));
  QVERIFY(!e.dropProfile("1g.10gb+me", 2));
  QCOMPARE(e.refusal(), QString::fromStdString(
                            validatorReason("1g.10gb@0,1g.10gb+me@1,3g.40gb@4*,1g.10gb+me@2")));
  // A profile of another model: the layout parser's message.
  QVERIFY(!e.dropProfile("1g.6gb", 2));
  QVERIFY(e.refusal().contains("1g.6gb"));
  QCOMPARE(e.layoutText(), QString("1g.10gb@0,1g.10gb+me@1,3g.40gb@4"));
  // A successful edit clears the reason.
  QVERIFY(e.dropProfile("1g.10gb", 2));
  QVERIFY(e.refusal().isEmpty());
}

void TestMigMap::editorDropEvents() {
  MigEditor e;
  loadBusyGpu(e);
  e.resize(800, 400);
  QSignalSpy refused(&e, &MigEditor::refused);
  bool accepted = false;
  // A 2g dropped on the position of slice 2.
  sendDrop(e.slotArea(), e.slotRect(2).center(), "2g.20gb", accepted);
  QVERIFY(accepted);
  QCOMPARE(e.layoutText(), QString("1g.10gb@0,2g.20gb@2,3g.40gb@4"));
  // A 1g dropped on the busy 3g: refused with the validator's overlap reason.
  sendDrop(e.slotArea(), e.slotRect(6).center(), "1g.10gb", accepted);
  QVERIFY(!accepted);
  QCOMPARE(refused.count(), 1);
  QCOMPARE(refused.at(0).at(0).toString(),
           QString::fromStdString(validatorReason("1g.10gb@0,2g.20gb@2,3g.40gb@4*,1g.10gb@6")));
  QCOMPARE(e.layoutText(), QString("1g.10gb@0,2g.20gb@2,3g.40gb@4"));
  // The palette's drags carry the profile under the editor's MIME type.
  QListWidget* palette = e.profilePalette();
  QVERIFY(palette->model()->mimeTypes().contains(MigEditor::kProfileMime));
  std::unique_ptr<QMimeData> mime(palette->model()->mimeData({palette->model()->index(4, 0)}));
  QVERIFY(mime);
  QCOMPARE(QString::fromUtf8(mime->data(MigEditor::kProfileMime)), QString("3g.40gb"));
  // The busy instance is drawn differently from a free slot.
  e.resetLayout();
  const QImage img = e.slotArea()->grab().toImage();
  QVERIFY(cornerPixel(img, e.slotRect(5)) != cornerPixel(img, e.slotRect(2)));
}

void TestMigMap::editorBusyPinned() {
  MigEditor e;
  loadBusyGpu(e);
  QSignalSpy refused(&e, &MigEditor::refused);
  const QString before = e.layoutText();
  QVERIFY(!e.removeInstanceAt(5));
  QCOMPARE(e.layoutText(), before);
  QCOMPARE(refused.count(), 1);
  QVERIFY(e.refusal().contains("busy") && e.refusal().contains("job 42"));
  QVERIFY(!e.moveInstance(4, 0));
  QCOMPARE(e.layoutText(), before);
  // The Delete key on the selected busy instance: refused too.
  e.selectSlice(6);
  QTest::keyClick(e.slotArea(), Qt::Key_Delete);
  QCOMPARE(e.layoutText(), before);
  QCOMPARE(refused.count(), 3);
  // A target layout without the busy instance cannot be pre-filled either.
  QVERIFY(!e.setInitialLayout("7g.80gb"));
  QCOMPARE(e.layoutText(), before);
}

void TestMigMap::editorMoveAndDelete() {
  MigEditor e;
  loadBusyGpu(e);
  QVERIFY(e.moveInstance(0, 3));
  QCOMPARE(e.layoutText(), QString("1g.10gb@3,3g.40gb@4"));
  QVERIFY(!e.moveInstance(3, 4));  // onto the busy 3g
  QCOMPARE(e.layoutText(), QString("1g.10gb@3,3g.40gb@4"));
  e.selectSlice(3);
  QCOMPARE(e.selectedSlice(), 3);
  QTest::keyClick(e.slotArea(), Qt::Key_Delete);
  QCOMPARE(e.layoutText(), QString("3g.40gb@4"));
  QVERIFY(!e.removeInstanceAt(0));  // nothing there any more
  // Palette double-click path: 3g goes to the only start left.
  QVERIFY(e.addProfile("3g.40gb"));
  QCOMPARE(e.layoutText(), QString("3g.40gb@0,3g.40gb@4"));
  QVERIFY(!e.addProfile("3g.40gb"));
}

void TestMigMap::editorInitialLayout() {
  MigEditor e;
  loadBusyGpu(e);
  QSignalSpy changed(&e, &MigEditor::layoutChanged);
  // A counterfactual without starts: the planner keeps the busy 3g@4 and the idle 1g@0.
  QVERIFY(e.setInitialLayout("3g.40gb,4x1g.10gb"));
  QCOMPARE(e.layoutText(), QString("1g.10gb@0,1g.10gb@1,1g.10gb@2,1g.10gb@3,3g.40gb@4"));
  QVERIFY(e.instanceAt(4)->busy);
  QCOMPARE(changed.count(), 1);
  QVERIFY(!e.setInitialLayout("3g.40gb,nonsense"));
  QCOMPARE(e.layoutText(), QString("1g.10gb@0,1g.10gb@1,1g.10gb@2,1g.10gb@3,3g.40gb@4"));
  e.resetLayout();
  QCOMPARE(e.layoutText(), QString("1g.10gb@0,3g.40gb@4"));
}

void TestMigMap::editorButtonsAndImpact() {
  MigEditor e;
  loadBusyGpu(e);
  QVERIFY(!e.applyButton()->isEnabled());  // nothing changed yet
  QVERIFY(e.dropProfile("1g.10gb", 1));
  QVERIFY(e.dryRunButton()->isEnabled() && e.applyButton()->isEnabled());
  QSignalSpy dry(&e, &MigEditor::dryRunRequested);
  QSignalSpy apply(&e, &MigEditor::applyRequested);
  QTest::mouseClick(e.dryRunButton(), Qt::LeftButton);
  QCOMPARE(dry.count(), 1);
  QCOMPARE(dry.at(0).at(0).toString(), QString("n1/0"));
  QCOMPARE(dry.at(0).at(1).toString(), QString("1g.10gb@0,1g.10gb@1,3g.40gb@4"));
  e.showImpact("would create 1g.10gb@1; no job preempted");
  QCOMPARE(e.impactText(), QString("would create 1g.10gb@1; no job preempted"));
  QTest::mouseClick(e.applyButton(), Qt::LeftButton);
  QCOMPARE(apply.count(), 1);
  QCOMPARE(apply.at(0).at(1).toString(), e.layoutText());
}

void TestMigMap::editorA30() {
  MigEditor e;
  const ClusterSnapshot s = fixture();
  QVERIFY(e.setGpu(s.nodes[1].gpus[0], "n2/0"));
  QCOMPARE(e.profileNames().size(), 5);
  QCOMPARE(e.slotRect(3).right(), e.slotArea()->width() - MigEditor::kMargin - 1);
  QVERIFY(!e.slotRect(4).isValid());
  QVERIFY(e.dropProfile("2g.12gb", 2));
  QCOMPARE(e.layoutText(), QString("2g.12gb@0,2g.12gb@2"));
  QVERIFY(!e.dropProfile("1g.6gb", 3));
}

QTEST_MAIN(TestMigMap)
#include "tst_mig_map.moc"
