// The console window on the live embedded demo, headless: it fills the queues from the running
// engine, paints a non-empty heatmap and MIG map (pixels inspected, not just "no crash"), a
// pending job dropped on a GPU becomes the engine's pin command, with its result in the
// activity log, and a job dragged over the heatmap gets the engine's preview of the drop.
#include <QDockWidget>
#include <QListWidget>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <future>
#include <memory>

#include "../service/demo_backend.h"
#include "clusterspec/cluster_spec.h"
#include "console/main_window.h"
#include "console_session.h"
#include "heatmap_widget.h"
#include "idle_gpu_model.h"
#include "idle_gpu_panel.h"
#include "job_table_model.h"
#include "mig_map_widget.h"
#include "report_export_dialog.h"
#include "rpc/server.h"
#include "service/backend.h"
#include "utilization_chart.h"

#include <QtCharts/QLineSeries>
#include "workload/workload_spec.h"

using namespace tessera;

namespace {

// Pixels that differ from the most common color (the background).
int paintedPixels(const QImage& image) {
  QHash<QRgb, int> counts;
  for (int y = 0; y < image.height(); y += 2)
    for (int x = 0; x < image.width(); x += 2) ++counts[image.pixel(x, y)];
  int background = 0;
  for (int c : counts) background = std::max(background, c);
  int total = 0;
  for (int c : counts) total += c;
  return total - background;
}

bool logContains(QListWidget* log, const QString& text) {
  for (int i = 0; i < log->count(); ++i)
    if (log->item(i)->text().contains(text)) return true;
  return false;
}

}  // namespace

class TstConsole : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // Keep the developer's own window layout out of the test.
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void opensOnTheLiveDemoAndActs() {
    console::EmbeddedOptions demo;
    demo.cluster = demoCluster();
    demo.workload = *demoWorkload();
    console::MainWindow window(std::move(demo));
    window.resize(1440, 900);
    window.show();
    QTRY_VERIFY_WITH_TIMEOUT(window.jobs()->rowCount() >= 20, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!window.heatmap()->snapshot().nodes.empty(), 10000);
    QVERIFY(paintedPixels(window.heatmap()->grab().toImage()) > 2000);
    QVERIFY(window.migMap()->gpuCount() > 0);
    QVERIFY(paintedPixels(window.migMap()->grab().toImage()) > 500);
    // The utilization chart gets the engine's metric series (sampled every engine minute; the
    // demo runs at 60x, so a sample a second).
    auto* chart = window.findChild<widgets::UtilizationChart*>();
    QVERIFY(chart);
    QTRY_VERIFY_WITH_TIMEOUT(chart->line(widgets::UtilizationChart::Line::Allocated)->count() > 0,
                             15000);

    // The first pending job, dropped on a GPU of the demo's H100 pod: the pin command goes to
    // the engine and its answer (applied or refused with the reason) lands in the log.
    JobId pending = kNoJob;
    for (int r = 0; r < window.jobs()->rowCount() && pending == kNoJob; ++r)
      if (window.jobs()->jobAt(r).row.state == JobState::Pending)
        pending = window.jobs()->jobAt(r).row.job.id;
    QVERIFY(pending != kNoJob);
    emit window.heatmap()->jobDropped(pending, "pod-a-01", 0);
    const QString what = "pin job " + QString::number(pending);
    QTRY_VERIFY_WITH_TIMEOUT(logContains(window.activity(), what), 10000);

    // Keyboard on the pending table: H holds the selected job, through the same command path.
    auto* dock = window.findChild<QDockWidget*>("pending");
    auto* view = qobject_cast<QAbstractItemView*>(dock->widget());
    QVERIFY(view && view->model()->rowCount() > 0);
    view->setFocus();
    view->setCurrentIndex(view->model()->index(0, 0));
    const JobId first = view->currentIndex().data(widgets::JobTableModel::JobIdRole).toULongLong();
    QTest::keyClick(view, Qt::Key_H);
    QTRY_VERIFY_WITH_TIMEOUT(logContains(window.activity(), "hold job " + QString::number(first)),
                             10000);
  }

  // Reclaim from the idle list on the live demo: the demo's notebooks hold GPUs and idle at a few
  // percent. An idle GPU whose jobs run is selected, "Cancel job" is confirmed (the dialog names
  // the job and its team), the command goes through the session, its result lands in the
  // activity log and the jobs stop running.
  void reclaimsAnIdleJob() {
    console::EmbeddedOptions demo;
    demo.cluster = demoCluster();
    demo.workload = *demoWorkload();
    console::MainWindow window(std::move(demo));
    window.show();
    widgets::IdleGpuPanel* panel = window.idlePanel();
    QVERIFY(panel);
    QAbstractItemModel* idle = panel->view()->model();
    // An idle GPU all of whose jobs are running: select it.
    QList<JobId> victims;
    auto pickIdleGpu = [&] {
      for (int r = 0; r < idle->rowCount(); ++r) {
        QList<JobId> jobs;
        for (const QVariant& v : idle->index(r, 0).data(widgets::IdleGpuModel::JobIdsRole).toList())
          jobs << v.toULongLong();
        const bool allRunning =
            !jobs.isEmpty() && std::all_of(jobs.begin(), jobs.end(), [&](JobId id) {
              const int row = window.jobs()->rowOf(id);
              return row >= 0 && window.jobs()->jobAt(row).row.state == JobState::Running;
            });
        if (!allRunning) continue;
        panel->view()->selectRow(r);
        victims = jobs;
        return true;
      }
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(pickIdleGpu(), 60000);
    QStringList asked;
    panel->setConfirm([&asked](const QString&, const QString& text) {
      asked << text;
      return true;
    });
    QVERIFY(panel->cancelAction()->isEnabled());
    panel->cancelAction()->trigger();
    QCOMPARE(asked.size(), 1);
    for (JobId id : victims) {
      const JobInfo& info = window.jobs()->jobAt(window.jobs()->rowOf(id));
      const QString named =
          QString("Job %1 of team %2: ").arg(id).arg(QString::fromStdString(info.row.job.team));
      QVERIFY2(asked[0].contains(named), qPrintable(asked[0]));
    }
    for (JobId id : victims) {
      QTRY_VERIFY_WITH_TIMEOUT(logContains(window.activity(), "cancel job " + QString::number(id)),
                               10000);
      // Cancelled jobs leave the active list; a job still listed is no longer running.
      QTRY_VERIFY_WITH_TIMEOUT(
          window.jobs()->rowOf(id) < 0 ||
              window.jobs()->jobAt(window.jobs()->rowOf(id)).row.state != JobState::Running,
          10000);
    }
  }

  // A pending job dragged over the heatmap: the window dry-runs the pin on the real engine and
  // the heatmap shows the verdict - where the job would start over a free GPU, why not over the
  // down node - while the Activity log stays free of previews.
  void dragPreviewAsksTheEngine() {
    console::EmbeddedOptions demo;
    demo.cluster = demoCluster();
    demo.workload = *demoWorkload();
    console::MainWindow window(std::move(demo));
    window.resize(1440, 900);
    window.show();
    widgets::HeatmapWidget* heatmap = window.heatmap();
    QTRY_VERIFY_WITH_TIMEOUT(!heatmap->snapshot().nodes.empty(), 10000);
    // The demo's hardware gives the heatmap its NUMA zones.
    QVERIFY(!heatmap->heatmapLayout().numaZones().empty());
    // Time stands still, so a GPU free now stays free while the test asks about it.
    QVERIFY(window.embeddedBackend());
    window.embeddedBackend()->setSpeed(0);

    // A one-GPU job pinned to the down node: pending, whatever else happens.
    Job probe;
    probe.name = "preview-probe";
    probe.team = "search";
    probe.priorityClass = "serving";
    probe.workloadClass = WorkloadClass::Batch;
    probe.perTask = {GpuRequest::Kind::Whole, 1, {}, 0, 0};
    probe.pool = "training";
    probe.pinNodes = {"pod-b-12"};
    JobId id = kNoJob;
    {
      std::promise<std::variant<std::vector<JobId>, ApiError>> p;
      window.embeddedBackend()->submit(
          {probe}, Caller{}, std::nullopt,
          [&p](std::variant<std::vector<JobId>, ApiError> r) { p.set_value(std::move(r)); });
      auto r = p.get_future().get();
      QVERIFY2(std::holds_alternative<std::vector<JobId>>(r),
               std::holds_alternative<ApiError>(r) ? std::get<ApiError>(r).message.c_str() : "");
      id = std::get<std::vector<JobId>>(r).front();
    }
    QTRY_VERIFY_WITH_TIMEOUT(window.jobs()->rowOf(id) >= 0, 10000);
    QCOMPARE(window.jobs()->jobAt(window.jobs()->rowOf(id)).row.state, JobState::Pending);
    // A snapshot asked for after the pause: the last jobs the clock started before it are in.
    int snapshots = 0;
    connect(window.session(), &widgets::ConsoleSession::snapshotReady, this, [&] { ++snapshots; });
    window.session()->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(snapshots > 0, 10000);

    // A free whole GPU of the training pool, on a node that is up.
    QString freeNode;
    int freeGpu = -1;
    for (const NodeView& n : heatmap->snapshot().nodes)
      for (const GpuView& g : n.gpus)
        if (freeGpu < 0 && n.state == "up" && n.pool == "training" && g.sharing == "exclusive" &&
            g.occupants.empty()) {
          freeNode = QString::fromStdString(n.name);
          freeGpu = g.index;
        }
    QVERIFY2(freeGpu >= 0, "no free training GPU in the demo");

    // The drag, with the mime data the queue table makes for the job.
    const int row = window.jobs()->rowOf(id);
    std::unique_ptr<QMimeData> mime(window.jobs()->mimeData({window.jobs()->index(row, 0)}));
    QVERIFY(mime);
    auto move = [&](QPointF scene) {
      const QPoint at = heatmap->mapFromScene(scene).toPoint();
      QDragMoveEvent e(at, Qt::MoveAction, mime.get(), Qt::LeftButton, {});
      QApplication::sendEvent(heatmap, &e);
      return e.isAccepted();
    };
    QDragEnterEvent enter(QPoint(1, 1), Qt::MoveAction, mime.get(), Qt::LeftButton, {});
    QApplication::sendEvent(heatmap, &enter);
    QVERIFY(enter.isAccepted());
    const widgets::HeatmapLayout& layout = heatmap->heatmapLayout();
    const int tile = layout.tileOf(freeNode, freeGpu);
    QVERIFY(tile >= 0);
    QVERIFY(move(layout.tiles()[static_cast<size_t>(tile)].rect.center()));
    QTRY_VERIFY_WITH_TIMEOUT(heatmap->dropPreview().has_value(), 10000);
    const QString where = QString("%1[%2]").arg(freeNode).arg(freeGpu);
    QVERIFY2(heatmap->dropPreview()->ok && heatmap->dropPreview()->text.contains(where),
             qPrintable(heatmap->dropPreview()->text));

    // Over the down node's frame: refused, and the callout says why.
    const int down = heatmap->heatmapLayout().nodeOf("pod-b-12");
    QVERIFY(down >= 0);
    QVERIFY(move(heatmap->heatmapLayout().nodes()[static_cast<size_t>(down)].header.center()));
    QTRY_VERIFY_WITH_TIMEOUT(heatmap->dropPreview().has_value(), 10000);
    QVERIFY2(!heatmap->dropPreview()->ok && heatmap->dropPreview()->text.contains("down"),
             qPrintable(heatmap->dropPreview()->text));
    QDragLeaveEvent leave;
    QApplication::sendEvent(heatmap, &leave);
    QVERIFY(!heatmap->dropPreview());

    // Two dry runs went to the engine, none to the Activity log; the job is as it was.
    QTest::qWait(200);
    QVERIFY(!logContains(window.activity(), "pin job " + QString::number(id)));
    QVERIFY(!logContains(window.activity(), "Dry run"));
    QCOMPARE(window.jobs()->jobAt(window.jobs()->rowOf(id)).row.state, JobState::Pending);
  }

  // "Export report…" (Ctrl+E) opens the dialog on the session: a preview of the embedded demo's
  // report, computed from its database.
  void exportsAReportOfTheDemo() {
    console::EmbeddedOptions demo;
    demo.cluster = demoCluster();
    demo.workload = *demoWorkload();
    console::MainWindow window(std::move(demo));
    window.show();
    QAction* action = window.exportReportAction();
    QVERIFY(action);
    QCOMPARE(action->text(), QString("Export report…"));
    QCOMPARE(action->shortcut(), QKeySequence("Ctrl+E"));
    QTRY_VERIFY_WITH_TIMEOUT(window.heatmap()->snapshot().now > 120, 10000);
    action->trigger();
    auto* dialog = window.reportDialog();
    QVERIFY(dialog && dialog->isVisible());
    dialog->setRange(widgets::ReportExportDialog::Range::WholeHistory);
    QSignalSpy shown(dialog, &widgets::ReportExportDialog::previewShown);
    QSignalSpy failed(dialog, &widgets::ReportExportDialog::failed);
    dialog->startPreview();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() + failed.count() > 0, 60000);
    QVERIFY2(failed.isEmpty(), qPrintable(dialog->message()));
    QCOMPARE(dialog->report()->header.cluster, demoCluster()->name);
  }

  // The same window on a remote tesserad (a Backend behind the gRPC server): the panels fill
  // and an action goes through, with no widget knowing the difference.
  void worksOnARemoteSession() {
    QTemporaryDir dir;
    BackendConfig c;
    c.database = dir.filePath("remote.db").toStdString();
    c.mode = BackendMode::SimulatedLive;
    c.cluster = demoCluster();
    c.tenants = *demoWorkload();
    c.cycleSeconds = 0.2;
    auto backend = Backend::open(c);
    QVERIFY(backend);
    rpc::ServerOptions so;
    so.listen = "127.0.0.1:0";
    auto server = rpc::ApiServer::start(**backend, so);
    QVERIFY(server);
    Job big = test::demoJobThatWaits();
    JobId id = kNoJob;
    {
      std::promise<JobId> p;
      (*backend)->submit({big}, Caller{}, std::nullopt,
                         [&p](std::variant<std::vector<JobId>, ApiError> r) {
                           p.set_value(std::get<std::vector<JobId>>(r)[0]);
                         });
      id = p.get_future().get();
    }

    console::EmbeddedOptions demo;
    demo.cluster = demoCluster();
    demo.workload = *demoWorkload();
    console::MainWindow window(std::move(demo));
    window.show();
    auto remote = console::openRemoteSession(
        {QString("127.0.0.1:%1").arg((*server)->port()), QString(), QString()});
    QVERIFY2(remote, remote ? "" : remote.error().str().c_str());
    window.useSession(*remote, "tesserad (test)", nullptr);
    QVERIFY(!window.embeddedBackend());
    QTRY_VERIFY_WITH_TIMEOUT(window.jobs()->rowOf(id) >= 0, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!window.heatmap()->snapshot().nodes.empty(), 10000);
    window.session()->act(cmd::Hold{id}, false);
    QTRY_VERIFY_WITH_TIMEOUT(logContains(window.activity(), "hold job " + QString::number(id)),
                             10000);
    QTRY_VERIFY_WITH_TIMEOUT(window.jobs()->jobAt(window.jobs()->rowOf(id)).row.job.held, 10000);

    // A report through the remote session (ClusterSession::report): no progress, a busy bar.
    window.openReportDialog();
    auto* dialog = window.reportDialog();
    dialog->setRange(widgets::ReportExportDialog::Range::WholeHistory);
    QSignalSpy shown(dialog, &widgets::ReportExportDialog::previewShown);
    QSignalSpy failed(dialog, &widgets::ReportExportDialog::failed);
    QTRY_VERIFY_WITH_TIMEOUT(window.heatmap()->snapshot().now > 0, 10000);
    dialog->startPreview();
    QCOMPARE(dialog->progressBar()->maximum(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() + failed.count() > 0, 60000);
    QVERIFY2(failed.isEmpty(), qPrintable(dialog->message()));
    QCOMPARE(dialog->report()->header.cluster, demoCluster()->name);
    (*server)->shutdown();
  }
};

QTEST_MAIN(TstConsole)
#include "tst_console.moc"
