// The console window on the live embedded demo, headless: it fills the queues from the running
// engine, paints a non-empty heatmap and MIG map (pixels inspected, not just "no crash"), and a
// pending job dropped on a GPU becomes the engine's pin command, with its result in the
// activity log.
#include <QDockWidget>
#include <QListWidget>
#include <QProgressBar>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <future>

#include "clusterspec/cluster_spec.h"
#include "console/main_window.h"
#include "console_session.h"
#include "heatmap_widget.h"
#include "job_table_model.h"
#include "mig_map_widget.h"
#include "report_export_dialog.h"
#include "rpc/server.h"
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
    auto* view = qobject_cast<QTableView*>(dock->widget());
    QVERIFY(view && view->model()->rowCount() > 0);
    view->setFocus();
    view->setCurrentIndex(view->model()->index(0, 0));
    const JobId first = view->currentIndex().data(widgets::JobTableModel::JobIdRole).toULongLong();
    QTest::keyClick(view, Qt::Key_H);
    QTRY_VERIFY_WITH_TIMEOUT(logContains(window.activity(), "hold job " + QString::number(first)),
                             10000);
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
    Job big = demoWorkload()->jobs[0];
    big.id = kNoJob;
    big.tasks = 64;
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
