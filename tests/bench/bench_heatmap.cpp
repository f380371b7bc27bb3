// Topology heatmap benchmark (heatmap issue): a synthetic 10,000-GPU cluster (1,250 nodes x 8
// GPUs under 2 spines / 40 leaves, with MIG nodes, NVL racks, several teams, missing telemetry,
// drained/down nodes and faulted GPUs). Measures, as the median of N runs (default 100; p90 and max
// beside):
//   - setSnapshot (layout + per-tile state) of the whole cluster;
//   - a full repaint into a 1920x1080 QImage, fitted (every GPU visible: target < 16 ms on the
//     median, one frame at 60 Hz), and zoomed in to where labels and MIG sub-tiles are drawn;
//   - HeatmapLayout::hitTest at random scene points (target < 0.1 ms) and a rubber-band query.
// A "repaint" is HeatmapWidget::paint into a QImage with Qt's raster engine: no window, no
// compositing, no flush to a screen. A hit-test figure is the mean per call over a batch of
// 100,000 calls, one sample per batch: not a distribution of single calls.
// Figures are printed with MET / NOT MET and as RESULT lines (bench_stats.h) for
// installer/run-benchmarks.sh; the exit code is non-zero only on errors.
//
// Run: build/release/tests/bench/bench_heatmap [--runs N] [--nodes N] [--png PREFIX] [--smoke]
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QRandomGenerator>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench_stats.h"
#include "heatmap_layout.h"
#include "heatmap_widget.h"

using namespace tessera;
using namespace tessera::widgets;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  int runs = 100;
  int nodes = 1250;
  std::string png;
  bool smoke = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--runs" && more)
      o.runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--nodes" && more)
      o.nodes = std::max(1, std::atoi(argv[++i]));
    else if (a == "--png" && more)
      o.png = argv[++i];
    else if (a == "--smoke")
      o.smoke = true;
    else {
      std::fprintf(stderr,
                   "usage: bench_heatmap [--runs N] [--nodes N] [--png PREFIX] [--smoke]\n");
      std::exit(2);
    }
  }
  if (o.smoke) o.runs = std::min(o.runs, 3);
  return o;
}

// A GPU of node n: whole-GPU jobs on about two thirds, one team per job, telemetry missing on
// one GPU in 40.
GpuView exclusiveGpu(int n, int i, QRandomGenerator& rng) {
  GpuView g;
  g.index = i;
  g.model = "H100-SXM5-80GB";
  g.sharing = "exclusive";
  g.nvlinkDomain = "nvsw-" + std::to_string(n);
  if (rng.bounded(3) != 0) {
    const JobId job = static_cast<JobId>(1 + n / 2);
    g.occupants.push_back({job, 1000, "", "team-" + std::to_string(job % 8), -1});
    g.allocated = 1;
  }
  if (rng.bounded(40) != 0) {
    g.util = g.allocated * (0.3 + 0.7 * rng.generateDouble());
    g.smActive = *g.util * rng.generateDouble();
  }
  return g;
}

GpuView migGpu(int n, int i) {
  GpuView g;
  g.index = i;
  g.model = "A100-SXM4-80GB";
  g.sharing = "mig";
  g.migLayout = "3g.40gb@4*,2g.20gb@0,1g.10gb@2*,1g.10gb@3";
  const JobId job = static_cast<JobId>(100000 + n * 8 + i);
  g.occupants.push_back({job, 500, "3g.40gb", "team-" + std::to_string(job % 8), 4});
  g.occupants.push_back({job + 1, 125, "1g.10gb", "team-" + std::to_string((job + 1) % 8), 2});
  g.allocated = 0.625;
  g.util = 0.4;
  g.smActive = 0.2;
  return g;
}

ClusterSnapshot synthesize(int nodes) {
  QRandomGenerator rng(42);
  ClusterSnapshot s;
  const int leaves = std::max(1, nodes * 40 / 1250);
  for (int n = 0; n < nodes; ++n) {
    NodeView nv;
    nv.name = "gpu-" + std::to_string(n);
    const int leaf = n * leaves / nodes;
    nv.leaf = "leaf-" + std::to_string(leaf);
    nv.spine = "spine-" + std::to_string(leaf * 2 / leaves);
    nv.pool = "training";
    nv.state = n % 97 == 5 ? "down" : n % 53 == 7 ? "draining" : "up";
    const bool mig = n % 10 == 3;
    const bool rack = leaf % 8 == 7;  // NVL racks: 4 nodes per multi-node NVLink domain
    for (int i = 0; i < 8; ++i) {
      GpuView g = mig ? migGpu(n, i) : exclusiveGpu(n, i, rng);
      if (rack) g.nvlinkDomain = "rack-" + std::to_string(n / 4);
      // About one GPU in 200 faulted (Xid 79): every layer draws their corners.
      if ((n * 8 + i) % 199 == 11) g.fault = GpuView::Fault{79, "fallen off the bus", 0, {}};
      nv.gpus.push_back(std::move(g));
    }
    s.nodes.push_back(std::move(nv));
  }
  for (int t = 0; t < 8; ++t) s.teams.push_back({"team-" + std::to_string(t), "", 1, 0, 0});
  return s;
}

// The RESULT lines, printed after the table so that it stays readable.
std::vector<std::pair<std::string, bench::Summary>> results;

// A table row; its figures become RESULT lines named `key`. The target applies to the median;
// the p90 is shown only where the runs hold one (bench::hasPercentile).
void row(const char* what, const std::string& key, const bench::Summary& f, double targetMs) {
  char target[48] = "-";
  if (targetMs > 0)
    std::snprintf(target, sizeof target, "< %g ms %s", targetMs,
                  f.median < targetMs ? "MET" : "NOT MET");
  char p90[16] = "-";
  if (bench::hasPercentile(0.90, f.n)) std::snprintf(p90, sizeof p90, "%10.5f", f.p90);
  std::printf("| %-44s | %10.5f | %10s | %10.5f | %s\n", what, f.median, p90, f.max, target);
  results.emplace_back(key, f);
}

void paintOnce(HeatmapWidget& w, QImage& img) {
  QPainter p(&img);
  w.paint(p, img.rect());
}

// With --png PREFIX, what was measured goes to PREFIX-<what>.png for a look.
void savePng(HeatmapWidget& w, QImage& img, const std::string& prefix, const char* what) {
  if (prefix.empty()) return;
  paintOnce(w, img);
  const std::string file = prefix + "-" + what + ".png";
  if (!img.save(QString::fromStdString(file)))
    std::fprintf(stderr, "cannot write %s\n", file.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const Options o = parse(argc, argv);
  const ClusterSnapshot snap = synthesize(o.nodes);
  size_t gpus = 0;
  for (const auto& n : snap.nodes) gpus += n.gpus.size();
  std::printf(
      "Heatmap benchmark: %zu GPUs on %zu nodes, 1920x1080, %d runs per row (ms; median, p90 "
      "and max of the %d, nearest rank)\n\n",
      gpus, snap.nodes.size(), o.runs, o.runs);
  std::printf("| %-44s | %10s | %10s | %10s | target\n", "what", "median", "p90", "max");
  std::printf("|%s|------------|------------|------------|-------\n", std::string(46, '-').c_str());

  HeatmapWidget w;
  w.resize(1920, 1080);
  row("setSnapshot (layout + tile state)", "set_snapshot",
      bench::measure(o.runs, [&] { w.setSnapshot(snap); }), 0);
  QImage img(1920, 1080, QImage::Format_ARGB32_Premultiplied);
  const struct {
    const char* name;
    const char* key;
    HeatmapLayer layer;
  } layers[] = {{"full repaint, fitted, allocation layer", "repaint.fitted.allocation",
                 HeatmapLayer::Allocation},
                {"full repaint, fitted, team layer", "repaint.fitted.team", HeatmapLayer::Team},
                {"full repaint, fitted, utilization layer", "repaint.fitted.utilization",
                 HeatmapLayer::Utilization},
                {"full repaint, fitted, gap layer", "repaint.fitted.gap", HeatmapLayer::Gap}};
  for (const auto& l : layers) {
    w.setLayer(l.layer);
    w.fitToView();
    row(l.name, l.key, bench::measure(o.runs, [&] { paintOnce(w, img); }), 16);
  }
  w.setLayer(HeatmapLayer::Allocation);
  w.fitToView();
  savePng(w, img, o.png, "fitted");
  const double tile = w.heatmapLayout().params().tile;
  const QPointF center(960, 540);
  for (double px : {16.0, 48.0}) {
    w.fitToView();
    w.zoomAt(center, px / (tile * w.zoom()));
    w.setLayer(HeatmapLayer::Team);
    const std::string tiles = std::to_string(static_cast<int>(px));
    const std::string name = "repaint zoomed in, tiles " + tiles + " px, team layer";
    row(name.c_str(), "repaint.zoomed" + tiles + "px.team",
        bench::measure(o.runs, [&] { paintOnce(w, img); }), 16);
    savePng(w, img, o.png, px < 20 ? "zoomed-16px" : "zoomed-48px");
  }

  const HeatmapLayout& layout = w.heatmapLayout();
  QRandomGenerator rng(1);
  const QRectF b = layout.bounds();
  constexpr int kPoints = 100000;
  std::vector<QPointF> points;
  for (int i = 0; i < kPoints; ++i)
    points.emplace_back(b.left() + rng.generateDouble() * b.width(),
                        b.top() + rng.generateDouble() * b.height());
  size_t hits = 0;
  bench::Summary batch = bench::measure(o.runs, [&] {
    for (const QPointF& p : points) hits += layout.hitTest(p).has_value();
  });
  // Per call: each sample is a batch's mean, so these are statistics of batch means.
  for (double* v :
       {&batch.min, &batch.median, &batch.p90, &batch.p95, &batch.p99, &batch.max, &batch.mean})
    *v /= kPoints;
  row("hitTest, mean per call (batches of 100,000)", "hit_test.mean_per_call", batch, 0.1);
  std::vector<int> found;
  const QRectF quarter(b.topLeft(), b.size() / 2);
  row("rubber band over a quarter of the scene", "rubber_band",
      bench::measure(o.runs, [&] { layout.tilesIn(quarter, found); }), 0);
  std::printf("\n");
  for (const auto& [key, figure] : results) bench::printSummary(key, figure, "ms");
  std::printf("\n%zu of %d random points hit a GPU; the band holds %zu GPUs.\n",
              hits / static_cast<size_t>(o.runs), kPoints, found.size());
  return hits > 0 && !found.empty() ? 0 : 1;
}
