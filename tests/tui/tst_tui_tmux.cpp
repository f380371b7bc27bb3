// The real `tessera top` in tmux (send-keys, capture-pane), against the embedded demo and against
// a tesserad this test starts and stops: views switch, the filter narrows, a hold goes through
// the dry-run confirmation and reaches the engine (read back through the API), a resize lays the
// screen out again, a viewer token hides the actions, and q or Ctrl+C leave the alternate screen
// with exit status 0. Also the program's Feed against a tesserad: its event-tail thread is joined
// when the Feed goes.
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>

#include "../rpc/daemon_process.h"
#include "../service/backend_test_util.h"
#include "../service/demo_jobs.h"
#include "rpc/auth.h"
#include "tui/feed.h"

using namespace tessera;
using namespace tessera::test;

namespace {

// One tmux server of our own (its own socket), killed at the end.
class Tmux {
 public:
  Tmux(int width, int height, const QString& command)
      : socket_(QStringLiteral("tessera-tui-%1-%2")
                    .arg(QCoreApplication::applicationPid())
                    .arg(++count_)) {
    // The shell line echoes top's exit status, then waits, so the pane stays for capture.
    const QString line =
        QStringLiteral(
            "env LANG=C.UTF-8 TESSERA_LANG=en NO_COLOR= %1; echo TOP-EXITED-$?; sleep 120")
            .arg(command);
    run({"-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", QString::number(width), "-y",
         QString::number(height), line});
  }
  ~Tmux() { run({"kill-server"}); }

  QString run(const QStringList& args) const {
    QProcess p;
    p.start(QStringLiteral("tmux"), QStringList{"-L", socket_} + args);
    p.waitForFinished(10000);
    return QString::fromUtf8(p.readAllStandardOutput());
  }
  void keys(const QStringList& keys) const { run(QStringList{"send-keys", "-t", "t"} + keys); }
  // Typed literally (no key names).
  void type(const QString& text) const { run({"send-keys", "-t", "t", "-l", text}); }
  QString screen() const { return run({"capture-pane", "-p", "-t", "t"}); }
  QStringList lines() const { return screen().split('\n'); }
  // Waits until the screen contains `text`; false (after printing the screen) on timeout.
  bool waitFor(const QString& text, int ms = 20000) const {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
      if (screen().contains(text)) return true;
      QTest::qWait(100);
    }
    qWarning("waited for '%s'; the screen:\n%s", qPrintable(text), qPrintable(screen()));
    return false;
  }
  [[nodiscard]] bool alternateScreen() const {
    return run({"display-message", "-p", "-t", "t", "#{alternate_on}"}).trimmed() == "1";
  }

 private:
  QString socket_;
  static inline int count_ = 0;
};

QString top() {
  return QStringLiteral(TESSERA_BIN " top");
}

// The rows of a list view: the lines between the column titles and the key hints.
QStringList bodyRows(const QStringList& lines) {
  QStringList rows;
  for (qsizetype i = 3; i < lines.size() && !lines[i].startsWith(":view"); ++i)
    if (!lines[i].trimmed().isEmpty()) rows << lines[i].trimmed();
  return rows;
}

int countIn(const QString& viewLine) {
  static const QRegularExpression re(R"(\[(\d+)\])");
  const auto m = re.match(viewLine);
  return m.hasMatch() ? m.captured(1).toInt() : -1;
}

std::string writeFile(const QTemporaryDir& dir, const QString& name, const std::string& text) {
  const std::string path = dir.filePath(name).toStdString();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

class TstTuiTmux : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // A test that did not run must not pass: tmux comes with installer/bootstrap-debian12.sh.
    if (QProcess::execute(QStringLiteral("tmux"), {"-V"}) != 0)
      QFAIL("tmux is not installed (installer/bootstrap-debian12.sh installs it)");
  }

  void demoViewsFilterResizeQuit() {
    Tmux t(120, 40, top() + " --demo");
    QVERIFY(t.waitFor("<Jobs>"));
    QVERIFY(t.alternateScreen());
    t.type(":nodes");
    t.keys({"Enter"});
    QVERIFY(t.waitFor("<Nodes>"));
    const int all = countIn(t.lines()[1]);
    QVERIFY2(all > 20, qPrintable(t.lines()[1]));
    t.type("/pod-b");
    t.keys({"Enter"});
    QVERIFY(t.waitFor("/pod-b"));
    const QStringList lines = t.lines();
    const int narrowed = countIn(lines[1]);
    QVERIFY2(narrowed > 0 && narrowed < all, qPrintable(lines[1]));
    const QStringList rows = bodyRows(lines);
    QCOMPARE(rows.size(), narrowed);
    for (const QString& r : rows) QVERIFY2(r.startsWith("pod-b"), qPrintable(r));
    t.keys({"Escape"});  // clears the filter
    QTRY_COMPARE_WITH_TIMEOUT(countIn(t.lines()[1]), all, 5000);
    t.type(":gpus");
    t.keys({"Enter"});
    QVERIFY(t.waitFor("<GPU heatmap>"));
    QVERIFY(t.lines()[38].startsWith(":view"));  // the hints' line of a 40-line terminal
    // A resize lays everything out again: the hints move to the new second-to-last line and no
    // line is wider than the terminal.
    t.run({"resize-window", "-t", "t", "-x", "80", "-y", "24"});
    QTRY_VERIFY_WITH_TIMEOUT(t.lines().size() >= 23 && t.lines()[22].startsWith(":view"), 5000);
    for (const QString& l : t.lines()) QVERIFY2(l.size() <= 80, qPrintable(l));
    QVERIFY(t.lines()[0].startsWith(" Tessera top"));
    QVERIFY(t.lines()[1].startsWith("<GPU heatmap>"));
    t.keys({"q"});
    QVERIFY(t.waitFor("TOP-EXITED-0"));
    QVERIFY(!t.alternateScreen());
    QVERIFY(!t.screen().contains("<GPU heatmap>"));
  }

  // `:running` lists the running jobs alone; `:jobs state=pend` switches and filters in one line;
  // in the heatmap the arrows move the selected GPU and Enter opens its node.
  void demoRunningInlineFilterHeatmapKeys() {
    Tmux t(120, 40, top() + " --demo");
    QVERIFY(t.waitFor("<Jobs>"));
    t.type(":running");
    t.keys({"Enter"});
    QVERIFY(t.waitFor("<Running>"));
    QTRY_VERIFY_WITH_TIMEOUT(!bodyRows(t.lines()).isEmpty(), 5000);
    for (const QString& r : bodyRows(t.lines())) QVERIFY2(r.contains("running"), qPrintable(r));
    t.type(":jobs state=pend");
    t.keys({"Enter"});
    QVERIFY(t.waitFor("/state=pend"));
    QVERIFY(t.lines()[1].startsWith("<Jobs>"));
    for (const QString& r : bodyRows(t.lines())) QVERIFY2(r.contains("pending"), qPrintable(r));
    t.type(":gpus");
    t.keys({"Enter"});
    QVERIFY(t.waitFor("<GPU heatmap>"));
    t.keys({"Right", "Right", "Down", "l"});
    t.keys({"Enter"});
    QVERIFY(t.waitFor("<Node>"));
    t.keys({"q"});
    QVERIFY(t.waitFor("TOP-EXITED-0"));
  }

  void ctrlCRestoresTheTerminal() {
    Tmux t(100, 30, top() + " --demo --view pending");
    QVERIFY(t.waitFor("<Pending>"));
    t.keys({"C-c"});
    QVERIFY(t.waitFor("TOP-EXITED-0"));
    QVERIFY(!t.alternateScreen());
  }

  // A crash signal still gives the terminal back: the alternate screen is left and the shell sees
  // the signal's status (128 + SIGSEGV).
  void crashSignalRestoresTheTerminal() {
    Tmux t(100, 30, top() + " --demo");
    QVERIFY(t.waitFor("<Jobs>"));
    // The pane's shell runs top as its only child (env execs it).
    const QString shell = t.run({"display-message", "-p", "-t", "t", "#{pane_pid}"}).trimmed();
    QProcess children;
    children.start(QStringLiteral("pgrep"), {"-P", shell});
    QVERIFY(children.waitForFinished(5000));
    const QStringList pids =
        QString::fromUtf8(children.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(pids.size(), qsizetype{1});
    QCOMPARE(::kill(pids[0].toInt(), SIGSEGV), 0);
    QVERIFY(t.waitFor("TOP-EXITED-139"));
    QVERIFY(!t.alternateScreen());
  }

  // LANG=C: ASCII only, still a full screen.
  void asciiUnderLangC() {
    Tmux t(100, 30, "LANG=C LC_ALL=C " + top() + " --demo --view gpus");
    // Fully allocated GPUs in the ASCII shade, once the demo's first cycle has placed jobs (the
    // pushed change shows within the 2 s refresh).
    QVERIFY(t.waitFor("####"));
    for (QChar c : t.screen()) QVERIFY2(c.unicode() < 0x80, qPrintable(QString(c)));
    t.keys({"q"});
    QVERIFY(t.waitFor("TOP-EXITED-0"));
  }

  void holdReachesTesserad() {
    QTemporaryDir dir;
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", dir.filePath("top.db"), "--cycle-interval", "0.2"}),
             qPrintable(d.log()));
    auto client = d.client();
    Job job = demoJobThatWaits();
    job.name = "tui-target";
    const JobId id = ok(await<std::vector<JobId>>(
        [&](auto r) { client->submit({job}, Caller{}, std::nullopt, r); }))[0];
    QVERIFY(!ok(await<JobInfo>([&](auto r) { client->job(id, r); })).row.job.held);

    Tmux t(120, 40, top() + " --server " + QString::fromStdString(d.address()) + " --view pending");
    QVERIFY(t.waitFor("tui-target"));
    QVERIFY(t.screen().contains("h hold"));  // no token: the local operator may act
    t.type("/name=tui-target");
    t.keys({"Enter"});
    QVERIFY(t.waitFor("[1]"));
    t.keys({"h"});
    QVERIFY(t.waitFor("Dry run"));
    QVERIFY(t.screen().contains(QStringLiteral("hold job %1").arg(id)));
    t.keys({"y"});
    QVERIFY(t.waitFor("done:"));
    QVERIFY(ok(await<JobInfo>([&](auto r) { client->job(id, r); })).row.job.held);
    t.keys({"q"});
    QVERIFY(t.waitFor("TOP-EXITED-0"));
    QCOMPARE(d.terminate(), 0);
  }

  // The events view follows the live stream, and after tesserad restarts it resumes where it
  // stopped: the job submitted after the restart shows up in the tail.
  void eventsResumeAfterARestart() {
    QTemporaryDir dir;
    const QString db = dir.filePath("events.db");
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", db}), qPrintable(d.log()));
    const QString listen = QString::fromStdString(d.address());
    Tmux t(120, 40, top() + " --server " + listen + " --view events");
    QVERIFY(t.waitFor("<Events>"));
    const auto submitted = [&](JobId id) {
      const QRegularExpression row(QStringLiteral(R"(^\s*\d+\s+\S+\s+%1\s+submitted)").arg(id),
                                   QRegularExpression::MultilineOption);
      QElapsedTimer timer;
      timer.start();
      while (timer.elapsed() < 20000) {
        if (row.match(t.screen()).hasMatch()) return true;
        QTest::qWait(100);
      }
      qWarning("no submitted row for job %lld:\n%s", static_cast<long long>(id),
               qPrintable(t.screen()));
      return false;
    };
    const auto submit = [&] {
      auto c = d.client();
      return ok(await<std::vector<JobId>>(
          [&](auto r) { c->submit({demoJobThatWaits()}, Caller{}, std::nullopt, r); }))[0];
    };
    QVERIFY(submitted(submit()));
    QCOMPARE(d.terminate(), 0);
    QVERIFY2(d.start({"--mode", "live", "--db", db, "--listen", listen}), qPrintable(d.log()));
    QVERIFY(submitted(submit()));
    t.keys({"q"});
    QVERIFY(t.waitFor("TOP-EXITED-0"));
    QCOMPARE(d.terminate(), 0);
  }

  void viewerTokenHidesActions() {
    QTemporaryDir dir;
    const std::string token = *generateToken();
    const std::string tokens =
        writeFile(dir, "tokens.yaml",
                  "tokens:\n  - {name: eve, role: viewer, sha256: " + sha256Hex(token) + "}\n");
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", dir.filePath("viewer.db"), "--tokens",
                      QString::fromStdString(tokens)}),
             qPrintable(d.log()));
    Tmux t(120, 40,
           "TESSERA_TOKEN=" + QString::fromStdString(token) + " " + top() + " --server " +
               QString::fromStdString(d.address()));
    QVERIFY(t.waitFor("read-only"));
    QVERIFY(!t.screen().contains("h hold"));
    t.keys({"q"});
    QVERIFY(t.waitFor("TOP-EXITED-0"));
    QCOMPARE(d.terminate(), 0);
  }

  // The event tail's thread belongs to the Feed: destroying the Feed cancels the stream and joins
  // the thread. The thread holds the session, so a thread left running would keep it alive.
  void feedJoinsItsEventTail() {
    QTemporaryDir dir;
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", dir.filePath("tail.db")}), qPrintable(d.log()));
    std::shared_ptr<rpc::RemoteSession> remote = d.client();
    const std::weak_ptr<rpc::RemoteSession> session = remote;
    QElapsedTimer closing;
    {
      tui::Feed feed(nullptr, std::move(remote));
      QVERIFY(feed.fetch({}, kNoJob).connection.empty());  // starts the tail
      QTest::qWait(300);  // the thread is now blocked reading the stream
      closing.start();
    }
    QVERIFY2(closing.elapsed() < 3000, "the tail thread was not stopped promptly");
    QVERIFY(session.expired());
    QCOMPARE(d.terminate(), 0);
  }

  // A wrong address fails before the terminal is taken, with ctl's exit code for it.
  void unreachableServer() {
    Tmux t(100, 20, top() + " --server 127.0.0.1:1 --timeout 2");
    QVERIFY(t.waitFor("TOP-EXITED-3"));
    QVERIFY(t.screen().contains("tessera top:"));
  }
};

QTEST_GUILESS_MAIN(TstTuiTmux)
#include "tst_tui_tmux.moc"
