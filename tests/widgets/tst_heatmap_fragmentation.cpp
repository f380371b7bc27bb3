// The heatmap's fragmentation layer: which free capacity counts as stranded for the pending work,
// per kind of GPU (whole, time-sliced, MIG), on hand-built snapshots.
#include <QtTest>

#include "heatmap_widget.h"
#include "service/gpu_fragmentation.h"

using namespace tessera;
using namespace tessera::widgets;

namespace {

GpuView gpu(int index, const std::string& sharing, std::vector<int> occupantsMilli = {},
            const std::string& model = "H100-SXM5-80GB", const std::string& migLayout = "") {
  GpuView g;
  g.index = index;
  g.model = model;
  g.sharing = sharing;
  g.migLayout = migLayout;
  for (int milli : occupantsMilli) g.occupants.push_back({JobId{1}, milli, "", "t", -1});
  return g;
}

NodeView node(const std::string& name, std::vector<GpuView> gpus, const std::string& state = "up") {
  NodeView n;
  n.name = name;
  n.state = state;
  n.gpus = std::move(gpus);
  n.leaf = "l1";
  n.spine = "s1";
  return n;
}

// A pixel well inside the tile of `gpu` on the widget's only node, away from its label.
QRgb tilePixel(const HeatmapWidget& w, const QImage& img, int gpu) {
  for (const HeatmapTile& t : w.heatmapLayout().tiles())
    if (t.gpu == gpu) {
      const QRectF r = w.mapFromScene(t.rect);
      return img.pixel((r.topLeft() + QPointF(r.width() * 0.2, r.height() * 0.2)).toPoint());
    }
  return 0;
}

JobInfo pending(GpuRequest::Kind kind, int gpus, int milli, const std::string& profile,
                JobState state = JobState::Pending) {
  JobInfo j;
  j.row.state = state;
  j.row.job.perTask.kind = kind;
  j.row.job.perTask.gpus = gpus;
  j.row.job.perTask.milli = milli;
  j.row.job.perTask.migProfile = profile;
  return j;
}

}  // namespace

class TestHeatmapFragmentation : public QObject {
  Q_OBJECT

 private slots:
  void demandComesFromPendingJobsOnly() {
    const auto d = FragmentationDemand::of({
        pending(GpuRequest::Kind::Whole, 8, 0, ""),
        pending(GpuRequest::Kind::Whole, 2, 0, ""),
        pending(GpuRequest::Kind::Whole, 1, 0, "", JobState::Running),  // running: not demand
        pending(GpuRequest::Kind::Fraction, 0, 250, ""),
        pending(GpuRequest::Kind::Mig, 0, 0, "1g.10gb"),
        pending(GpuRequest::Kind::Mig, 0, 0, "1g.10gb"),
    });
    QCOMPARE(d.minWholeGpus, 2);
    QCOMPARE(d.minMilli, 250);
    QCOMPARE(d.migProfiles, std::vector<std::string>{"1g.10gb"});
  }

  void freeWholeGpusOnAPartlyUsedNodeAreStrandedWhenNoTaskFits() {
    ClusterSnapshot s;
    s.nodes = {node("a", {gpu(0, "exclusive", {1000}), gpu(1, "exclusive", {1000}),
                          gpu(2, "exclusive"), gpu(3, "exclusive")}),
               node("idle", {gpu(0, "exclusive"), gpu(1, "exclusive")}),
               node("down", {gpu(0, "exclusive", {1000}), gpu(1, "exclusive")}, "down")};
    FragmentationDemand d;
    d.minWholeGpus = 4;  // 2 free GPUs on "a" fit no task
    auto f = gpuFragmentation(s, d, GpuCatalog::builtin());
    QCOMPARE(f[0], (std::vector<double>{0, 0, 1, 1}));
    QCOMPARE(f[1], (std::vector<double>{0, 0}));  // a whole free node is not fragmentation
    QCOMPARE(f[2], (std::vector<double>{0, 0}));  // a down node is unavailable, not fragmented
    d.minWholeGpus = 2;                           // now a task fits on "a"
    QCOMPARE(gpuFragmentation(s, d, GpuCatalog::builtin())[0], (std::vector<double>{0, 0, 0, 0}));
    d.minWholeGpus = 0;  // no whole-GPU work waits: nothing is stranded
    QCOMPARE(gpuFragmentation(s, d, GpuCatalog::builtin())[0], (std::vector<double>{0, 0, 0, 0}));
  }

  void timeSlicedLeftoversSmallerThanAnyPendingShare() {
    ClusterSnapshot s;
    s.nodes = {node("s", {gpu(0, "shared", {400, 300}), gpu(1, "shared")})};
    FragmentationDemand d;
    d.minMilli = 500;  // 300 left on GPU 0: too small
    auto f = gpuFragmentation(s, d, GpuCatalog::builtin());
    QCOMPARE(f[0][0], 0.3);
    QCOMPARE(f[0][1], 0.0);  // fully free: usable
    d.minMilli = 250;
    QCOMPARE(gpuFragmentation(s, d, GpuCatalog::builtin())[0][0], 0.0);
  }

  void migSlicesNoPendingProfileFits() {
    // A 4g.40gb at slices 0-3 leaves 4-7 free: a 7g.80gb cannot go there (stranded: half the
    // GPU); 1g.10gb instances fit on 4-6 but not on slice 7 (an A100's 1g.10gb placements are
    // 0-6), so one slice of eight stays stranded.
    ClusterSnapshot s;
    s.nodes = {node("m", {gpu(0, "mig", {}, "A100-SXM4-80GB", "4g.40gb@0")})};
    FragmentationDemand d;
    d.migProfiles = {"7g.80gb"};
    QCOMPARE(gpuFragmentation(s, d, GpuCatalog::builtin())[0][0], 0.5);
    d.migProfiles = {"1g.10gb"};
    QCOMPARE(gpuFragmentation(s, d, GpuCatalog::builtin())[0][0], 0.125);
    d.migProfiles = {"3g.40gb"};  // 3g.40gb may start at slice 4: nothing stranded
    QCOMPARE(gpuFragmentation(s, d, GpuCatalog::builtin())[0][0], 0.0);
  }

  // The layer paints stranded GPUs at the top of its scale and follows a new demand.
  void theLayerPaintsStrandedGpus() {
    ClusterSnapshot s;
    s.nodes = {node("a", {gpu(0, "exclusive", {1000}), gpu(1, "exclusive", {1000}),
                          gpu(2, "exclusive"), gpu(3, "exclusive")})};
    HeatmapWidget w;
    w.setLegendVisible(false);
    w.resize(600, 300);
    w.setSnapshot(s);
    w.setLayer(HeatmapLayer::Fragmentation);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.fitToView();
    FragmentationDemand d;
    d.minWholeGpus = 4;
    w.setFragmentationDemand(d);
    QImage img = w.grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QRgb stranded = heatmapScaleColor(HeatmapLayer::Fragmentation, 1.0).rgb();
    const QRgb usable = heatmapScaleColor(HeatmapLayer::Fragmentation, 0.0).rgb();
    QCOMPARE(tilePixel(w, img, 2), stranded);
    QCOMPARE(tilePixel(w, img, 0), usable);  // in use: not free, not stranded
    d.minWholeGpus = 1;                      // a one-GPU task fits: nothing is stranded any more
    w.setFragmentationDemand(d);
    img = w.grab().toImage().convertToFormat(QImage::Format_RGB32);
    QCOMPARE(tilePixel(w, img, 2), usable);
    QVERIFY(w.toolTipAt(w.mapFromScene(w.heatmapLayout().tiles()[2].rect.center())).size() > 0);
  }
};

QTEST_MAIN(TestHeatmapFragmentation)
#include "tst_heatmap_fragmentation.moc"
