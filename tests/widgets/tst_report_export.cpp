// The report export dialog with a fake runner: the preview shows the document, progress moves
// the bar, Cancel makes the runner's progress callback refuse, errors (the runner's, the fields')
// are shown, Export writes real PDF/HTML/CSV/JSON files, a newer request supersedes an older one
// and the settings survive a round trip. Then the console's embedded runner on a live demo:
// a report computed from the demo's own database, with real progress.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTextDocument>
#include <QtTest>

#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "../report/report_fixture.h"
#include "clusterspec/cluster_spec.h"
#include "console/session_factory.h"
#include "report/report_json.h"
#include "report_document.h"
#include "report_export_dialog.h"
#include "workload/workload_spec.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

using namespace tessera;
using tessera::widgets::ReportExportDialog;
using tessera::widgets::ReportRunner;

namespace {

// Records each request; the test answers them (from the GUI thread or a thread of its own).
struct FakeRunner {
  struct Call {
    ReportRequest request;
    widgets::ReportProgressCallback progress;
    widgets::ReportDoneCallback done;
  };
  std::vector<Call> calls;
  ReportRunner runner() {
    return
        [this](ReportRequest r, widgets::ReportProgressCallback p, widgets::ReportDoneCallback d) {
          calls.push_back({std::move(r), std::move(p), std::move(d)});
        };
  }
};

// For dialogs whose runner a test never starts.
ReportRunner neverAnswers() {
  return [](ReportRequest, widgets::ReportProgressCallback, widgets::ReportDoneCallback) {};
}

// Answers every request with `report`, from a worker thread as the real runners do.
ReportRunner answering(const Report& report) {
  return [report](ReportRequest, widgets::ReportProgressCallback progress,
                  widgets::ReportDoneCallback done) {
    std::thread([report, progress, done] {
      progress(0.5);
      done(report);
    }).detach();
  };
}

// Calls `f` on another thread and returns its result (the runner's callbacks come from workers).
template <typename F>
auto onThread(F f) {
  return std::async(std::launch::async, std::move(f)).get();
}

Report namedReport(const std::string& cluster) {
  Report r = test::sampleReport();
  r.header.cluster = cluster;
  return r;
}

bool previewContains(const ReportExportDialog& d, const QString& text) {
  return d.preview()->toPlainText().contains(text);
}

void writeFile(const QString& path, const QByteArray& content) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(content);
}

constexpr Seconds kNow = 1762000000 + 40 * 86400;  // a wall-clock session's newest time

}  // namespace

class TstReportExport : public QObject {
  Q_OBJECT

 private slots:
  void previewShowsTheDocument() {
    ReportExportDialog d(answering(test::sampleReport()));
    d.setClock(kNow, true);
    QSignalSpy shown(&d, &ReportExportDialog::previewShown);
    QTest::mouseClick(d.previewButton(), Qt::LeftButton);
    QVERIFY(d.busy());
    QTRY_COMPARE(shown.count(), 1);
    QVERIFY(!d.busy());
    QVERIFY(previewContains(d, "atlas-prod"));
    QVERIFY(previewContains(d, "alpha"));
    QVERIFY(d.report());
    // The charts are in the preview's document as images.
    QVERIFY(!d.preview()
                 ->document()
                 ->resource(QTextDocument::ImageResource, reportChartUrl("series"))
                 .isNull());
  }

  void progressMovesAndCancelStops() {
    FakeRunner fake;
    ReportExportDialog d(fake.runner());
    d.show();
    QTest::mouseClick(d.previewButton(), Qt::LeftButton);
    QCOMPARE(fake.calls.size(), size_t(1));
    // No progress yet: a busy bar, and Cancel is offered.
    QVERIFY(d.progressBar()->isVisible());
    QCOMPARE(d.progressBar()->maximum(), 0);
    QVERIFY(d.cancelButton()->isEnabled());
    auto progress = fake.calls[0].progress;
    QVERIFY(onThread([progress] { return progress(0.5); }));
    QTRY_COMPARE(d.progressBar()->value(), 500);
    QCOMPARE(d.progressBar()->maximum(), 1000);

    QTest::mouseClick(d.cancelButton(), Qt::LeftButton);
    QVERIFY(!d.busy());
    QVERIFY(!d.progressBar()->isVisible());
    QVERIFY(!onThread([progress] { return progress(0.6); }));
    // A result after the cancel is dropped.
    fake.calls[0].done(test::sampleReport());
    QCoreApplication::processEvents();
    QVERIFY(!d.report());
    QVERIFY(!previewContains(d, "atlas-prod"));
  }

  void runnerErrorIsShown() {
    FakeRunner fake;
    ReportExportDialog d(fake.runner());
    QSignalSpy failed(&d, &ReportExportDialog::failed);
    d.startPreview();
    auto done = fake.calls.at(0).done;
    onThread([done] {
      done(std::string("unknown team 'nope' (the source knows: alpha, beta)"));
      return 0;
    });
    QTRY_COMPARE(failed.count(), 1);
    QVERIFY(d.message().contains("unknown team 'nope'"));
    QVERIFY(!d.busy());
  }

  void fieldErrorsAreShownWithoutRunning() {
    FakeRunner fake;
    ReportExportDialog d(fake.runner());
    d.setClock(kNow, true);
    d.setCustomRange(kNow - 3600, kNow - 7200);
    d.startPreview();
    QVERIFY(d.message().contains("ends before it starts"));

    d.setCustomRange(kNow - 7200, kNow - 3600);
    d.setTimeZone("Mars/Olympus_Mons");
    d.startPreview();
    QVERIFY(d.message().contains("unknown time zone"));
    d.setTimeZone("UTC");

    QTemporaryDir dir;
    const QString prices = dir.filePath("prices.yaml");
    writeFile(prices, "currency: EUR\ngpu_hour:\n  H100-SXM5-80GB: cheap\n");
    d.setPriceFile(prices);
    QVERIFY(!d.priceError()->isHidden());
    QVERIFY2(d.priceError()->text().contains("prices.yaml:3"), qPrintable(d.priceError()->text()));
    d.startPreview();
    QVERIFY(d.message().contains("prices.yaml:3"));
    QVERIFY(fake.calls.empty());

    writeFile(prices, "currency: EUR\ngpu_hour:\n  H100-SXM5-80GB: 2.5\n");
    d.setPriceFile(prices);
    QVERIFY(d.priceError()->isHidden());
    d.startPreview();
    QCOMPARE(fake.calls.size(), size_t(1));
    QCOMPARE(fake.calls[0].request.prices->currency, std::string("EUR"));
  }

  void requestCarriesTheFields() {
    ReportExportDialog d(neverAnswers());
    d.setClock(kNow, true);
    d.setRange(ReportExportDialog::Range::Last7Days);
    d.setTimeZone("Europe/Berlin");
    d.setGroupBy(ReportGroup::Node);
    d.setTeams(" alpha, beta ,");
    auto r = std::get<ReportRequest>(d.request());
    QCOMPARE(*r.from, kNow - 7 * 86400);
    QCOMPARE(*r.to, kNow);
    QCOMPARE(r.groupBy, ReportGroup::Node);
    QCOMPARE(r.teams, (std::vector<std::string>{"alpha", "beta"}));
    QCOMPARE(r.timeZone, std::string("Europe/Berlin"));
    QCOMPARE(r.idleThreshold, 0.05);
    QCOMPARE(r.idleMinDuration, Seconds(1800));
    QVERIFY(!r.prices);

    // A custom range shown in a zone reads back as the same instants (across a DST change).
    const Seconds from = 1761440400, to = 1761616800;  // 2025-10-26 01:00Z, 2025-10-28 02:00Z
    d.setCustomRange(from, to);
    r = std::get<ReportRequest>(d.request());
    QCOMPARE(*r.from, from);
    QCOMPARE(*r.to, to);
    d.setRange(ReportExportDialog::Range::WholeHistory);
    r = std::get<ReportRequest>(d.request());
    QVERIFY(!r.from && !r.to);

    // Simulated time: presets count back from the session's clock, never before 0.
    d.setClock(7200, false);
    d.setRange(ReportExportDialog::Range::Last24Hours);
    r = std::get<ReportRequest>(d.request());
    QCOMPARE(*r.from, Seconds(0));
    QCOMPARE(*r.to, Seconds(7200));
    d.setCustomRange(1800, 5400);
    r = std::get<ReportRequest>(d.request());
    QCOMPARE(*r.from, Seconds(1800));
    QCOMPARE(*r.to, Seconds(5400));
  }

  void exportWritesFiles() {
    QTemporaryDir dir;
    const Report sample = test::sampleReport();
    ReportExportDialog d(answering(sample));
    QSignalSpy exported(&d, &ReportExportDialog::exported);
    auto exportTo = [&](ReportExportDialog::Format f, const QString& name) {
      d.setFormat(f);
      d.setOutputPath(dir.filePath(name));
      const auto before = exported.count();
      QTest::mouseClick(d.exportButton(), Qt::LeftButton);
      if (!QTest::qWaitFor([&] { return exported.count() == before + 1; }, 20000))
        qWarning("no export to %s: %s", qPrintable(name), qPrintable(d.message()));
      return dir.filePath(name);
    };
    QFile pdf(exportTo(ReportExportDialog::Format::Pdf, "r.pdf"));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
    QVERIFY(QFileInfo(exportTo(ReportExportDialog::Format::Html, "r.html")).size() > 1000);
    const QString csv = exportTo(ReportExportDialog::Format::Csv, "csv");
    QVERIFY(QFile::exists(csv + "/summary.csv"));
    QVERIFY(QFile::exists(csv + "/usage.csv"));
    const auto json =
        loadReportJsonFile(exportTo(ReportExportDialog::Format::Json, "r.json").toStdString());
    QVERIFY2(json, json ? "" : json.error().str().c_str());
    test::compare(*json, sample);

    // An unwritable path is an error in the dialog.
    QSignalSpy failed(&d, &ReportExportDialog::failed);
    d.setOutputPath("/proc/no-such-dir/r.json");
    QTest::mouseClick(d.exportButton(), Qt::LeftButton);
    QTRY_COMPARE(failed.count(), 1);
    QVERIFY(d.message().contains("/proc/no-such-dir/r.json"));
  }

  // A new format changes the output's extension (a CSV export is a directory).
  void formatChangesTheExtension() {
    ReportExportDialog d(neverAnswers());
    d.setOutputPath("/tmp/out/march.pdf");
    d.setFormat(ReportExportDialog::Format::Csv);
    QCOMPARE(d.outputPath(), QString("/tmp/out/march"));
    d.setFormat(ReportExportDialog::Format::Json);
    QCOMPARE(d.outputPath(), QString("/tmp/out/march.json"));
  }

  void newerPreviewSupersedesOlder() {
    FakeRunner fake;
    ReportExportDialog d(fake.runner());
    QSignalSpy shown(&d, &ReportExportDialog::previewShown);
    d.startPreview();
    d.startPreview();
    QCOMPARE(fake.calls.size(), size_t(2));
    auto older = fake.calls[0], newer = fake.calls[1];
    QVERIFY(!onThread([older] { return older.progress(0.2); }));
    QVERIFY(onThread([newer] { return newer.progress(0.2); }));
    // The older answer arrives first: dropped, and the newer one is still awaited.
    older.done(namedReport("older-cluster"));
    QCoreApplication::processEvents();
    QVERIFY(d.busy());
    QCOMPARE(shown.count(), 0);
    newer.done(namedReport("newer-cluster"));
    QTRY_COMPARE(shown.count(), 1);
    QVERIFY(previewContains(d, "newer-cluster"));
    QVERIFY(!previewContains(d, "older-cluster"));
  }

  void settingsRoundTrip() {
    ReportExportDialog a(neverAnswers());
    a.setClock(kNow, true);
    a.setCustomRange(kNow - 86400 * 3, kNow - 86400);
    a.setTimeZone("Asia/Tokyo");
    a.setGroupBy(ReportGroup::Department);
    a.setTeams("alpha");
    a.setFormat(ReportExportDialog::Format::Json);
    a.setOutputPath("/tmp/r.json");
    ReportExportDialog b(neverAnswers());
    b.setClock(kNow, true);
    b.setSettings(a.settings());
    QCOMPARE(b.settings(), a.settings());
    QCOMPARE(b.range(), ReportExportDialog::Range::Custom);
    QCOMPARE(b.format(), ReportExportDialog::Format::Json);
  }

  // The console's embedded runner on the live demo: a report from the demo's own database, with
  // real progress, through the dialog.
  void embeddedDemoReport() {
    console::EmbeddedOptions options;
    options.cluster = demoCluster();
    options.workload = *demoWorkload();
    options.speed = 3600;
    auto demo = console::openEmbeddedSession(options);
    QVERIFY2(demo, demo ? "" : demo.error().str().c_str());
    // A few engine hours, so the usage ledger has rows.
    auto engineNow = [&] {
      std::promise<Seconds> p;
      demo->backend->snapshot([&p](std::variant<ClusterSnapshot, ApiError> r) {
        p.set_value(std::holds_alternative<ClusterSnapshot>(r) ? std::get<ClusterSnapshot>(r).now
                                                               : 0);
      });
      return p.get_future().get();
    };
    QTRY_VERIFY_WITH_TIMEOUT(engineNow() > 3 * 3600, 20000);

    auto workers = std::make_shared<console::ReportWorkers>();
    auto progressCalls = std::make_shared<std::atomic<int>>(0);
    const ReportRunner embedded =
        console::embeddedReportRunner(demo->database, nullptr, demo->backend, workers);
    ReportExportDialog d([embedded, progressCalls](ReportRequest r,
                                                   widgets::ReportProgressCallback p,
                                                   widgets::ReportDoneCallback done) {
      embedded(
          std::move(r),
          [progressCalls, p](double f) {
            ++*progressCalls;
            return p(f);
          },
          std::move(done));
    });
    d.setClock(engineNow(), false);
    d.setRange(ReportExportDialog::Range::WholeHistory);
    QSignalSpy shown(&d, &ReportExportDialog::previewShown);
    QSignalSpy failed(&d, &ReportExportDialog::failed);
    d.startPreview();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() + failed.count() > 0, 60000);
    QVERIFY2(failed.isEmpty(), qPrintable(d.message()));
    QVERIFY(d.report()->total.allocated > 0);
    QVERIFY(!d.report()->header.wallClock);
    QVERIFY(*progressCalls > 0);
    QVERIFY(previewContains(d, QString::fromStdString(d.report()->header.cluster)));
    QVERIFY(!d.report()->usage.empty());
    QVERIFY(previewContains(d, QString::fromStdString(d.report()->usage[0].key)));

    // A team the demo does not have is the runner's error, shown in the dialog.
    d.setTeams("no-such-team");
    d.startPreview();
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, 60000);
    QVERIFY(d.message().contains("no-such-team"));
  }
};

QTEST_MAIN(TstReportExport)
#include "tst_report_export.moc"
