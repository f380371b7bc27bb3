// Terminal console benchmark (tessera top): a synthetic 10,000-GPU cluster (1,250 nodes x 8 GPUs
// under 2 spines / 40 leaves, one node in ten with MIG GPUs, some down or draining) and 5,000
// active jobs. Measures, as the median of N runs (default 100; p90 and max beside):
//   - one heatmap frame: render() of the GPU view at 200x60 (target < 10 ms);
//   - key to screen: a Down key through the controller, render() and the ncurses writer into a
//     pipe, in the heatmap and in the jobs view with 5,000 jobs (target < 50 ms);
//   - a steady refresh: 2% of the GPUs change allocation and utilization, the frame is rendered
//     and written; bytes sent to the terminal per refresh (target < 5 KiB), and a refresh with
//     no change (0 bytes expected).
// The writer runs with TERM=xterm-256color and 256 colours into a pipe that is drained after
// each frame; no terminal emulator is involved. Figures print with MET / NOT MET and as RESULT
// lines (bench_stats.h) for installer/run-benchmarks.sh; the exit code is non-zero only on errors.
//
// Run: build/release/tests/bench/bench_top [--runs N] [--smoke]
#include <fcntl.h>
#include <unistd.h>
#include <chrono>
#include <clocale>
#include <cstdio>
#include <functional>
#include <string>

#include "bench_stats.h"
#include "topology/gpu_catalog.h"
#include "tui/controller.h"
#include "tui/render.h"
#include "tui/terminal.h"

using namespace tessera;
using namespace tessera::tui;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kWidth = 200;
constexpr int kHeight = 60;

// Node n's GPU i: two in three busy with a job, utilization from a fixed pattern.
GpuView gpuOf(int n, int i) {
  GpuView g;
  g.index = i;
  g.model = n % 10 == 3 ? "A100-SXM4-80GB" : "H100-SXM5-80GB";
  g.sharing = n % 10 == 3 ? "mig" : "exclusive";
  g.nvlinkDomain = (n / 32) % 8 == 7 ? "rack-" + std::to_string(n / 4)
                                     : "gpu-" + std::to_string(n) + "/nvswitch";
  if ((n + i) % 3 != 0) {
    const JobId job = static_cast<JobId>(1 + n / 2);
    g.occupants.push_back(
        {job, 1000, g.sharing == "mig" ? "3g.40gb" : "", "team", g.sharing == "mig" ? 4 : -1});
    if (g.sharing == "mig") g.migLayout = "3g.40gb@4*";
    g.allocated = 1;
    g.util = ((n * 7 + i * 13) % 100) / 100.0;
    g.smActive = *g.util / 2;
  }
  return g;
}

State synthesize() {
  State s;
  ClusterSnapshot& c = s.data.snapshot;
  for (int n = 0; n < 1250; ++n) {
    NodeView nv;
    nv.name = "gpu-" + std::to_string(n);
    nv.leaf = "leaf-" + std::to_string(n / 32);
    nv.spine = "spine-" + std::to_string(n / 625);
    nv.pool = "training";
    nv.state = n % 97 == 5 ? "down" : n % 53 == 7 ? "draining" : "up";
    for (int i = 0; i < 8; ++i) nv.gpus.push_back(gpuOf(n, i));
    c.nodes.push_back(std::move(nv));
  }
  for (JobId j = 1; j <= 5000; ++j) {
    JobInfo info;
    info.row.job.id = j;
    info.row.job.name = "job-" + std::to_string(j);
    info.row.job.team = "team-" + std::to_string(j % 8);
    info.row.job.perTask.kind = GpuRequest::Kind::Whole;
    info.row.job.perTask.gpus = 8;
    info.row.state = j % 4 == 0 ? JobState::Pending : JobState::Running;
    info.queuePosition = j % 4 == 0 ? static_cast<int>(j / 4) : 0;
    s.data.jobs.push_back(std::move(info));
  }
  s.data.source = "bench";
  deriveGpus(s.data, GpuCatalog::builtin());  // as the Feed does per refresh: MIG slice bars
  return s;
}

// 2% of the GPUs flip between busy and free, as a refresh of a busy cluster brings.
void churn(State& s, int round) {
  int k = 0;
  for (NodeView& n : s.data.snapshot.nodes)
    for (GpuView& g : n.gpus)
      if ((k++ + round * 7) % 50 == 0) {
        g.allocated = g.allocated > 0 ? 0 : 1;
        g.util = g.allocated * 0.5;
      }
}

// The terminal: ncurses writing into a pipe that the benchmark drains and counts.
struct PipeTerminal {
  int fd[2] = {-1, -1};
  int in[2] = {-1, -1};
  FILE* out = nullptr;
  FILE* inFile = nullptr;
  std::unique_ptr<Terminal> term;
  PipeTerminal() {
    if (::pipe2(fd, O_NONBLOCK) != 0 || ::pipe2(in, O_NONBLOCK) != 0) std::exit(1);
    ::fcntl(fd[0], F_SETPIPE_SZ, 1 << 20);
    out = ::fdopen(fd[1], "w");
    inFile = ::fdopen(in[0], "r");
    Terminal::Options o;
    o.in = inFile;
    o.out = out;
    o.term = "xterm-256color";
    o.color = ColorMode::Color256;
    o.handleSignals = false;
    std::string error;
    term = Terminal::open(o, error);
    if (!term) {
      std::fprintf(stderr, "bench_top: %s\n", error.c_str());
      std::exit(1);
    }
    term->resize(kWidth, kHeight);
  }
  size_t drain() const {
    size_t total = 0;
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd[0], buf, sizeof buf)) > 0) total += static_cast<size_t>(n);
    return total;
  }
};

void row(const char* what, const bench::Summary& s, const char* unit, double target) {
  std::printf("| %-44s | %9.3f | %9.3f | %9.3f | %-4s | < %g %s: %s |\n", what, s.median, s.p90,
              s.max, unit, target, unit, s.median < target ? "MET" : "NOT MET");
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--smoke")
      runs = 3;
    else {
      std::fprintf(stderr, "usage: bench_top [--runs N] [--smoke]\n");
      return 2;
    }
  }
  std::setlocale(LC_ALL, "C.UTF-8");
  State s = synthesize();
  s.ui.stack = {View::Gpus};
  const auto frame = bench::measure(runs, [&] { (void)render(s, kWidth, kHeight); });

  PipeTerminal pt;
  pt.term->draw(render(s, kWidth, kHeight));
  pt.drain();
  const auto keyHeatmap = bench::measure(runs, [&] {
    onKey(s, kKeyDown);
    pt.term->draw(render(s, kWidth, kHeight));
    pt.drain();
  });
  State jobs = s;
  jobs.ui.stack = {View::Jobs};
  const auto keyJobs = bench::measure(runs, [&] {
    onKey(jobs, kKeyDown);
    pt.term->draw(render(jobs, kWidth, kHeight));
    pt.drain();
  });

  s.ui.selected = 0;
  pt.term->draw(render(s, kWidth, kHeight));
  pt.drain();
  std::vector<double> bytes, still;
  for (int r = 0; r < runs; ++r) {
    churn(s, r);
    pt.term->draw(render(s, kWidth, kHeight));
    bytes.push_back(static_cast<double>(pt.drain()));
    pt.term->draw(render(s, kWidth, kHeight));
    still.push_back(static_cast<double>(pt.drain()));
  }
  const auto refresh = bench::summarize(bytes);
  const auto unchanged = bench::summarize(still);

  std::printf("tessera top, 10,000 GPUs, 5,000 jobs, %dx%d, %d runs\n", kWidth, kHeight, runs);
  std::printf("| %-44s | %9s | %9s | %9s | %-4s | target |\n", "figure", "median", "p90", "max",
              "unit");
  row("heatmap frame (render)", frame, "ms", 10);
  row("key to screen, heatmap", keyHeatmap, "ms", 50);
  row("key to screen, jobs view (5,000 jobs)", keyJobs, "ms", 50);
  row("steady refresh, 2% of GPUs changed", refresh, "B", 5120);
  row("refresh with no change", unchanged, "B", 1);
  bench::printSummary("frame.heatmap", frame, "ms");
  bench::printSummary("key_to_screen.heatmap", keyHeatmap, "ms");
  bench::printSummary("key_to_screen.jobs", keyJobs, "ms");
  bench::printSummary("refresh.bytes", refresh, "B");
  bench::printSummary("refresh.unchanged_bytes", unchanged, "B");
  pt.term->restore();
  return 0;
}
