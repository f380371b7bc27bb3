// End to end: a real tesserad process on loopback, driven through the real client
// (RemoteSession): submit, watch, act with dry run and apply, explain, snapshot, metrics,
// restart and resume the stream; authentication and roles; TLS; bad input answered with the
// right status while the server stays healthy; health and reflection for standard tools;
// reports (GetReport, `ctl report`) and the reports tesserad writes on its own schedule;
// dcgm-exporter telemetry pushed with `ctl telemetry push`.
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include <grpcpp/generic/generic_stub.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "../service/backend_test_util.h"
#include "../service/demo_backend.h"
#include "core/engine_text.h"
#include "daemon_process.h"
#include "reflection_min.grpc.pb.h"
#include "report/report_json.h"
#include "rpc/auth.h"
#include "snapshot_gpu.h"
#include "workload/workload_spec.h"

using namespace tessera;
using namespace tessera::test;
using tessera::test::ok;

namespace {

Job demoJob(size_t i) {
  auto w = demoWorkload();
  Job j = w->jobs[i % w->jobs.size()];
  j.id = kNoJob;
  return j;
}

int freePort() {
  QTcpServer s;
  s.listen(QHostAddress::LocalHost, 0);
  return s.serverPort();
}

QStringList simulated(const QString& db) {
  return {"--mode", "simulated-live", "--db", db, "--cycle-interval", "0.2", "--speed", "60"};
}

std::string writeFile(const QTemporaryDir& dir, const QString& name, const std::string& text) {
  const std::string path = dir.filePath(name).toStdString();
  std::ofstream(path) << text;
  return path;
}

// `tessera ctl --server ADDRESS ARGS...` with `input` on its stdin; its output (stdout and
// stderr), or a fatal failure when the exit code is not the expected one.
QString runCtl(const QString& server, const QStringList& args, int expectCode,
               const QByteArray& input = {}) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(TESSERA_BIN, QStringList{"ctl", "--server", server} + args);
  if (!input.isEmpty()) p.write(input);
  p.closeWriteChannel();
  if (!p.waitForFinished(60000)) qFatal("tessera ctl did not finish");
  const QString out = QString::fromUtf8(p.readAll());
  if (p.exitCode() != expectCode)
    qFatal("tessera ctl %s: exit %d, expected %d:\n%s", qPrintable(args.join(' ')), p.exitCode(),
           expectCode, qPrintable(out));
  return out;
}

grpc::Status getReport(rpc::RemoteSession& c, const v1::GetReportRequest& request,
                       v1::GetReportResponse& response) {
  grpc::ClientContext ctx;
  c.prepare(ctx);
  return c.stub().GetReport(&ctx, request, &response);
}

// The refusal of a GetReport request: its code, and whether the message has `text`.
void expectRefused(rpc::RemoteSession& c, const v1::GetReportRequest& request,
                   grpc::StatusCode code, const std::string& text) {
  v1::GetReportResponse response;
  const grpc::Status st = getReport(c, request, response);
  QCOMPARE(st.error_code(), code);
  QVERIFY2(st.error_message().find(text) != std::string::npos, st.error_message().c_str());
}

// The value of `column` in the one data row of a CSV table (no quoted fields expected).
std::string csvValue(const std::string& csv, const std::string& column) {
  std::istringstream in(csv);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  auto split = [](std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    return cells;
  };
  const auto names = split(header), values = split(row);
  for (size_t i = 0; i < names.size() && i < values.size(); ++i)
    if (names[i] == column) return values[i];
  return "<no column " + column + ">";
}

std::string readText(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll().toStdString();
}

}  // namespace

class TstRpcE2e : public QObject {
  Q_OBJECT

 private slots:
  void submitWatchActExplainAndResumeAfterRestart() {
    QTemporaryDir dir;
    const QString db = dir.filePath("e2e.db");
    const QString listen = "127.0.0.1:" + QString::number(freePort());
    Daemon d;
    QVERIFY2(d.start(simulated(db) << "--listen" << listen), qPrintable(d.log()));
    auto c = d.client();
    QCOMPARE(std::get<rpc::ServerHealth>(c->health()).status, std::string("SERVING"));
    const auto me = std::get<rpc::ServerIdentity>(c->whoAmI());
    QCOMPARE(me.role, std::string("admin"));  // no token file: local callers are admin
    QCOMPARE(me.mode, std::string("simulated-live"));

    // A watcher from the start of the log, collecting every event.
    std::vector<Event> seen;
    std::mutex seenMutex;
    std::atomic<bool> stop{false};
    std::thread watcher([&] {
      c->watch(0, [&](const Event& e) {
        std::lock_guard lock(seenMutex);
        seen.push_back(e);
        return !stop.load();
      });
    });

    Job big = demoJobThatWaits();
    const auto ids = ok(await<std::vector<JobId>>([&](auto r) {
      c->submit({big, demoJob(4)}, Caller{}, std::nullopt, r);
    }));
    QCOMPARE(ids.size(), size_t{2});
    const JobId held = ids[0];

    // Dry run: the impact, nothing applied.
    auto dry = ok(await<CommandResult>(
        [&](auto r) { c->act(cmd::Hold{held}, true, Caller{}, std::nullopt, r); }));
    QVERIFY(!dry.applied);
    QVERIFY(!ok(await<JobInfo>([&](auto r) { c->job(held, r); })).row.job.held);
    auto applied = ok(await<CommandResult>(
        [&](auto r) { c->act(cmd::Hold{held}, false, Caller{}, std::nullopt, r); }));
    QVERIFY(applied.applied);
    QVERIFY(ok(await<JobInfo>([&](auto r) { c->job(held, r); })).row.job.held);

    const auto x = ok(await<Explanation>([&](auto r) { c->explainJob(held, r); }));
    QCOMPARE(x.job, held);
    QVERIFY(!x.dominantReason.empty());
    // Brief: the last cycle's verdict from the published view, without the pass over the nodes
    // that the whole explanation makes.
    const JobId waits = ok(
        await<std::vector<JobId>>([&](auto r) { c->submit({big}, Caller{}, std::nullopt, r); }))[0];
    QTRY_VERIFY_WITH_TIMEOUT(
        !ok(await<JobInfo>([&](auto r) { c->job(waits, r); })).row.reason.empty(), 10000);
    const auto whole = ok(await<Explanation>([&](auto r) { c->explainJob(waits, r); }));
    const auto brief = ok(await<Explanation>([&](auto r) { c->explainBrief(waits, r); }));
    QCOMPARE(brief.job, waits);
    QVERIFY(!whole.nodeSummary.empty());
    QVERIFY(brief.nodeSummary.empty());
    QVERIFY(!brief.dominantReason.empty());

    const auto snap = ok(await<ClusterSnapshot>([&](auto r) { c->snapshot(r); }));
    QCOMPARE(snap.nodes.size(), size_t{62});
    QCOMPARE(snap.gpusTotal, 392.0);

    // Samples come every simulated minute (a second of wall time at speed 60).
    QTRY_VERIFY_WITH_TIMEOUT(!ok(await<MetricAnswer>([&](auto r) {
                                MetricQuery q;
                                q.series = "jobs_pending";
                                c->metrics(q, r);
                              })).series.points.empty(),
                             10000);
    const auto names = ok(await<MetricAnswer>([&](auto r) { c->metrics(MetricQuery{}, r); })).names;
    QVERIFY(std::find(names.begin(), names.end(), "gpus_allocated") != names.end());

    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          std::lock_guard lock(seenMutex);
          return std::any_of(seen.begin(), seen.end(), [&](const Event& e) {
            return e.job == held && e.kind == EventKind::Held;
          });
        }(),
        10000);
    {
      // The watch stream carries the reason as a sentence, not only its English.
      std::lock_guard lock(seenMutex);
      const auto h = std::find_if(seen.begin(), seen.end(), [&](const Event& e) {
        return e.job == held && e.kind == EventKind::Held;
      });
      QVERIFY(h != seen.end());
      QCOMPARE(h->reason.patternText(), std::string_view(text::kHeldBy));
      QCOMPARE(h->reason.english(), "held by " + h->actor);
    }

    // Restart on the same address: the watcher reconnects and resumes after the last event it
    // saw, so the sequence it collected stays dense (no gap, no duplicate).
    QCOMPARE(d.terminate(), 0);
    QVERIFY2(d.start(simulated(db) << "--listen" << listen), qPrintable(d.log()));
    uint64_t lastBefore = 0;
    {
      std::lock_guard lock(seenMutex);
      lastBefore = seen.back().seq;
    }
    auto c2 = d.client();
    ok(await<std::vector<JobId>>(
        [&](auto r) { c2->submit({demoJob(5)}, Caller{}, std::nullopt, r); }));
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          std::lock_guard lock(seenMutex);
          return seen.back().seq > lastBefore + 1;
        }(),
        15000);
    stop = true;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          ok(await<std::vector<JobId>>(
              [&](auto r) { c2->submit({demoJob(6)}, Caller{}, std::nullopt, r); }));
          return true;
        }(),
        5000);
    watcher.join();
    for (size_t i = 0; i < seen.size(); ++i) QCOMPARE(seen[i].seq, uint64_t(i + 1));
    // The held job is still held after the restart.
    QVERIFY(ok(await<JobInfo>([&](auto r) { c2->job(held, r); })).row.job.held);
    QCOMPARE(d.terminate(), 0);
  }

  void rolesDecideWhoMayAct() {
    QTemporaryDir dir;
    std::map<std::string, std::string> tokens;
    std::string file = "tokens:\n";
    for (const char* who : {"viewer", "operator", "admin", "agent"}) {
      tokens[who] = *generateToken();
      file += std::string("  - {name: ") + who + "-alice, role: " + who +
              ", sha256: " + sha256Hex(tokens[who]) + "}\n";
    }
    const std::string path = writeFile(dir, "tokens.yaml", file);
    Daemon d;
    QVERIFY2(
        d.start(simulated(dir.filePath("auth.db")) << "--tokens" << QString::fromStdString(path)),
        qPrintable(d.log()));
    auto viewer = d.client(tokens["viewer"]);
    auto op = d.client(tokens["operator"]);
    auto admin = d.client(tokens["admin"]);
    QCOMPARE(std::get<rpc::ServerIdentity>(viewer->whoAmI()).name, std::string("viewer-alice"));
    ok(await<ClusterSnapshot>([&](auto r) { viewer->snapshot(r); }));
    QCOMPARE(kindOf(await<std::vector<JobId>>(
                 [&](auto r) { viewer->submit({demoJob(0)}, Caller{}, std::nullopt, r); })),
             ErrorKind::PermissionDenied);
    Job big = demoJobThatWaits();
    const JobId id = ok(await<std::vector<JobId>>(
        [&](auto r) { op->submit({big}, Caller{}, std::nullopt, r); }))[0];
    QCOMPARE(kindOf(await<CommandResult>(
                 [&](auto r) { viewer->act(cmd::Hold{id}, false, Caller{}, std::nullopt, r); })),
             ErrorKind::PermissionDenied);
    ok(await<CommandResult>(
        [&](auto r) { op->act(cmd::Hold{id}, false, Caller{}, std::nullopt, r); }));
    QCOMPARE(kindOf(await<CommandResult>([&](auto r) {
               op->act(cmd::Drain{"pod-a-02", literal("x")}, false, Caller{}, std::nullopt, r);
             })),
             ErrorKind::PermissionDenied);
    ok(await<CommandResult>([&](auto r) {
      admin->act(cmd::Drain{"pod-a-02", literal("psu")}, false, Caller{}, std::nullopt, r);
    }));
    // A node agent may push telemetry and do nothing else, not even read; operators may push too.
    // (This daemon is simulated-live, so a push that passes the gate is refused for its mode.)
    auto agent = d.client(tokens["agent"]);
    auto pushAs = [](rpc::RemoteSession& c) {
      grpc::ClientContext ctx;
      c.prepare(ctx);
      v1::PushTelemetryRequest request;
      request.set_exposition("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"pod-a-01\"} 50\n");
      v1::PushTelemetryResponse response;
      return c.stub().PushTelemetry(&ctx, request, &response).error_code();
    };
    QCOMPARE(pushAs(*agent), grpc::StatusCode::FAILED_PRECONDITION);
    QCOMPARE(pushAs(*op), grpc::StatusCode::FAILED_PRECONDITION);
    QCOMPARE(pushAs(*viewer), grpc::StatusCode::PERMISSION_DENIED);
    QCOMPARE(kindOf(await<ClusterSnapshot>([&](auto r) { agent->snapshot(r); })),
             ErrorKind::PermissionDenied);
    QCOMPARE(kindOf(await<CommandResult>(
                 [&](auto r) { agent->act(cmd::Hold{id}, false, Caller{}, std::nullopt, r); })),
             ErrorKind::PermissionDenied);
    // Bad or missing tokens are unauthenticated, whatever they ask.
    auto stranger = d.client("tsr_not-a-real-token");
    QCOMPARE(kindOf(await<ClusterSnapshot>([&](auto r) { stranger->snapshot(r); })),
             ErrorKind::Unauthenticated);
    auto anonymous = d.client();
    QCOMPARE(kindOf(await<ClusterSnapshot>([&](auto r) { anonymous->snapshot(r); })),
             ErrorKind::Unauthenticated);
    // Every applied action is attributed to its token's identity.
    std::vector<Event> audit;
    admin->watch(0, [&](const Event& e) {
      if (e.kind == EventKind::Command) audit.push_back(e);
      return e.seq < ok(await<ClusterSnapshot>([&](auto r) { admin->snapshot(r); })).lastEventSeq;
    });
    QVERIFY(std::any_of(audit.begin(), audit.end(),
                        [](const Event& e) { return e.actor == "operator-alice"; }));
    QVERIFY(std::any_of(audit.begin(), audit.end(), [](const Event& e) {
      return e.actor == "admin-alice" && e.reason.english().find("drain") != std::string::npos;
    }));
    QCOMPARE(d.terminate(), 0);
  }

  void tlsRoundTrip() {
    QTemporaryDir dir;
    const QString cert = dir.filePath("cert.pem"), key = dir.filePath("key.pem");
    QProcess openssl;
    openssl.start("openssl", {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                              "-subj", "/CN=tesserad.test", "-addext",
                              "subjectAltName=DNS:tesserad.test", "-keyout", key, "-out", cert});
    QVERIFY(openssl.waitForFinished(30000));
    QCOMPARE(openssl.exitCode(), 0);
    Daemon d;
    QVERIFY2(
        d.start(simulated(dir.filePath("tls.db")) << "--tls-cert" << cert << "--tls-key" << key),
        qPrintable(d.log()));
    auto secure = d.client({}, cert.toStdString(), "tesserad.test");
    QCOMPARE(std::get<rpc::ServerIdentity>(secure->whoAmI()).mode, std::string("simulated-live"));
    auto plain = d.client();
    QVERIFY(std::holds_alternative<ApiError>(plain->whoAmI()));
    QCOMPARE(d.terminate(), 0);
  }

  void badInputGetsTheRightStatusAndTheServerStaysHealthy() {
    QTemporaryDir dir;
    const std::string config =
        writeFile(dir, "tesserad.yaml", "limits: {max_message_mib: 1, max_batch_jobs: 50}\n");
    Daemon d;
    QVERIFY2(
        d.start(simulated(dir.filePath("bad.db")) << "--config" << QString::fromStdString(config)),
        qPrintable(d.log()));
    auto c = d.client();
    // Unknown enum value, named by field.
    {
      grpc::ClientContext ctx;
      c->prepare(ctx);
      v1::SubmitRequest req;
      *req.mutable_job() = rpc::jobSpecToProto(demoJob(0));
      req.mutable_job()->set_workload_class(static_cast<v1::WorkloadClass>(99));
      v1::SubmitResponse resp;
      const auto st = c->stub().Submit(&ctx, req, &resp);
      QCOMPARE(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
      QVERIFY2(st.error_message().find("job.workload_class") != std::string::npos,
               st.error_message().c_str());
    }
    // No GPU request, unknown team: INVALID_ARGUMENT naming the job of the batch.
    {
      Job noTeam = demoJob(0);
      noTeam.team = "nobody";
      auto r = await<std::vector<JobId>>([&](auto rep) {
        c->submit({demoJob(1), noTeam}, Caller{}, std::nullopt, rep);
      });
      QCOMPARE(kindOf(r), ErrorKind::InvalidArgument);
      QVERIFY(std::get<ApiError>(r).message.find("jobs[1]") != std::string::npos);
    }
    // Invalid MIG layout.
    QCOMPARE(kindOf(await<CommandResult>([&](auto r) {
               c->act(cmd::Repartition{"inf-01/2", "7g.80gb+1g.10gb", false}, false, Caller{},
                      std::nullopt, r);
             })),
             ErrorKind::InvalidArgument);
    // Unknown ids and names.
    QCOMPARE(kindOf(await<JobInfo>([&](auto r) { c->job(987654, r); })), ErrorKind::NotFound);
    QCOMPARE(kindOf(await<Explanation>([&](auto r) { c->explainJob(987654, r); })),
             ErrorKind::NotFound);
    QCOMPARE(kindOf(await<CommandResult>(
                 [&](auto r) { c->act(cmd::Cancel{987654}, false, Caller{}, std::nullopt, r); })),
             ErrorKind::NotFound);
    QCOMPARE(kindOf(await<CommandResult>([&](auto r) {
               c->act(cmd::Drain{"no-such-node", {}}, false, Caller{}, std::nullopt, r);
             })),
             ErrorKind::NotFound);
    // An empty action.
    {
      grpc::ClientContext ctx;
      c->prepare(ctx);
      v1::ActResponse resp;
      QCOMPARE(c->stub().Act(&ctx, v1::ActRequest{}, &resp).error_code(),
               grpc::StatusCode::INVALID_ARGUMENT);
    }
    // Too many jobs in one batch, and a request over the size limit.
    {
      std::vector<Job> many(51, demoJob(4));
      QCOMPARE(kindOf(await<std::vector<JobId>>(
                   [&](auto r) { c->submit(many, Caller{}, std::nullopt, r); })),
               ErrorKind::ResourceExhausted);
      Job huge = demoJob(4);
      huge.name = std::string(2 << 20, 'x');
      QCOMPARE(kindOf(await<std::vector<JobId>>(
                   [&](auto r) { c->submit({huge}, Caller{}, std::nullopt, r); })),
               ErrorKind::ResourceExhausted);
    }
    // Bytes that are not a message at all.
    {
      grpc::GenericStub generic(
          grpc::CreateChannel(d.address(), grpc::InsecureChannelCredentials()));
      grpc::ClientContext ctx;
      const char garbage[] = "\xff\xff\xff\xff\x0f not protobuf";
      grpc::Slice slice(garbage, sizeof garbage - 1);
      grpc::ByteBuffer request(&slice, 1), response;
      std::mutex m;
      std::condition_variable cv;
      bool done = false;
      grpc::Status st;
      grpc::StubOptions options;
      generic.UnaryCall(&ctx, "/tessera.v1.Scheduler/GetJob", options, &request, &response,
                        [&](grpc::Status s) {
                          std::lock_guard lock(m);
                          st = s;
                          done = true;
                          cv.notify_one();
                        });
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return done; });
      QVERIFY(!st.ok());
    }
    QCOMPARE(std::get<rpc::ServerHealth>(c->health()).status, std::string("SERVING"));
    ok(await<ClusterSnapshot>([&](auto r) { c->snapshot(r); }));
    QCOMPARE(d.terminate(), 0);
  }

  // What an independent client had accepted with an id, and that then pended for ever: each is
  // INVALID_ARGUMENT naming the field and what exists, and nothing of it is stored.
  void jobsThatCanNeverRunAreRefusedAtSubmit() {
    QTemporaryDir dir;
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", dir.filePath("never.db")}), qPrintable(d.log()));
    auto c = d.client();
    const auto submit = [&](const std::function<void(v1::JobSpec&)>& change) {
      grpc::ClientContext ctx;
      c->prepare(ctx);
      v1::SubmitRequest req;
      *req.mutable_job() = rpc::jobSpecToProto(demoJob(0));
      change(*req.mutable_job());
      v1::SubmitResponse resp;
      return c->stub().Submit(&ctx, req, &resp);
    };
    const auto refusedAt = [](const grpc::Status& st, const std::string& field) {
      return st.error_code() == grpc::StatusCode::INVALID_ARGUMENT &&
             st.error_message().starts_with("jobs[0]." + field + ": ");
    };
    grpc::Status st = submit([](v1::JobSpec& j) {
      j.mutable_per_task()->Clear();
      j.mutable_per_task()->set_mig_profile("9g.999gb");
      j.clear_gpu_models();  // any model: the message lists every MIG profile on offer
      j.set_tasks(1);
      j.set_topology_required(false);
    });
    QVERIFY2(refusedAt(st, "per_task.mig_profile"), st.error_message().c_str());
    QVERIFY2(st.error_message().find("3g.40gb") != std::string::npos, st.error_message().c_str());
    st = submit([](v1::JobSpec& j) {
      j.clear_gpu_models();
      j.add_gpu_models("Z9000");
    });
    QVERIFY2(refusedAt(st, "gpu_models"), st.error_message().c_str());
    QVERIFY2(st.error_message().find("H100-SXM5-80GB") != std::string::npos,
             st.error_message().c_str());
    st = submit([](v1::JobSpec& j) { j.set_name(std::string(1 << 20, 'n')); });
    QVERIFY2(refusedAt(st, "name"), st.error_message().substr(0, 200).c_str());
    QVERIFY(st.error_message().size() < 300);
    st = submit([](v1::JobSpec& j) { j.set_tasks(4096); });  // 4096 tasks of 8 GPUs
    QVERIFY2(refusedAt(st, "tasks"), st.error_message().c_str());
    // The refusal carries the sentence for a translating client too.
    QVERIFY(!st.error_details().empty());
    QVERIFY(submit([](v1::JobSpec&) {}).ok());
    const JobPage page = ok(await<JobPage>([&](auto r) { c->jobs(JobFilter{}, r); }));
    QCOMPARE(page.jobs.size(), size_t{1});
    QCOMPARE(d.terminate(), 0);
  }

  void rateLimitsAnswerResourceExhausted() {
    QTemporaryDir dir;
    const std::string config =
        writeFile(dir, "tesserad.yaml", "limits: {rate_per_second: 2, burst: 3}\n");
    Daemon d;
    QVERIFY2(
        d.start(simulated(dir.filePath("rate.db")) << "--config" << QString::fromStdString(config)),
        qPrintable(d.log()));
    auto c = d.client();
    int refused = 0;
    for (int i = 0; i < 10; ++i)
      if (kindOf(await<ClusterSnapshot>([&](auto r) { c->snapshot(r); })) ==
          ErrorKind::ResourceExhausted)
        ++refused;
    QVERIFY(refused >= 5);
    QCOMPARE(d.terminate(), 0);
  }

  void listeningBeyondLoopbackNeedsTls() {
    QTemporaryDir dir;
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(TESSERAD_BIN,
            {"--db", dir.filePath("x.db"), "--listen", "0.0.0.0:0", "--metrics-listen", "off"});
    QVERIFY(p.waitForFinished(20000));
    QCOMPARE(p.exitCode(), 3);
    QVERIFY(QString::fromUtf8(p.readAll()).contains("needs TLS"));
  }

  // The metrics endpoint's promises (docs/tesserad.md#prometheus-metrics): a port taken or an
  // address that is not HOST:PORT stops the start with exit code 3, naming the address and why.
  void aMetricsPortThatCannotBeBoundStopsTheStart() {
    QTemporaryDir dir;
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost, 0));
    const QString busy = QString("127.0.0.1:%1").arg(taken.serverPort());
    const auto run = [&](const QString& metrics) {
      QProcess p;
      p.setProcessChannelMode(QProcess::MergedChannels);
      p.start(TESSERAD_BIN, {"--db", dir.filePath("m.db"), "--listen", "127.0.0.1:0",
                             "--metrics-listen", metrics});
      if (!p.waitForFinished(30000)) return std::pair<int, QString>{-1, "did not exit"};
      return std::pair<int, QString>{p.exitCode(), QString::fromUtf8(p.readAll())};
    };
    const auto [busyCode, busyLog] = run(busy);
    QCOMPARE(busyCode, 3);
    QVERIFY2(
        busyLog.contains("metrics endpoint: cannot listen on " + busy + ": Address already in use"),
        qPrintable(busyLog));
    const auto [badCode, badLog] = run("example.com:9464");
    QCOMPARE(badCode, 3);
    QVERIFY2(badLog.contains("invalid listen address 'example.com:9464'"), qPrintable(badLog));
  }

  // What prometheus-cpp serves in the real daemon beside the tessera families: the calls made
  // are timed by method and the process families are there. (How fast the endpoint stops is
  // tst_prometheus's: the process's own exit takes longer than the endpoint's stop.)
  void theDaemonServesCallLatencyAndProcessFamilies() {
    QTemporaryDir dir;
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", dir.filePath("m.db"), "--cycle-interval", "0.2"}),
             qPrintable(d.log()));
    const QString server = QString::fromStdString(d.address());
    for (int i = 0; i < 2; ++i)
      QCOMPARE(runCtl(server, {"health"}, 0).trimmed(), QString("SERVING"));
    const QByteArray metrics = d.scrapeMetrics();
    QVERIFY2(metrics.contains("tessera_rpc_duration_seconds_count{method=\"GetHealth\"} 2\n"),
             metrics.constData());
    QVERIFY(metrics.contains("\n# TYPE process_resident_memory_bytes gauge\n"));
    QVERIFY(metrics.contains("\n# TYPE tessera_cycle_seconds histogram\n"));
    QCOMPARE(d.terminate(), 0);
  }

  // The shell client against the real server: every kind of call, tables and JSON, dry runs,
  // and its exit codes.
  void ctlDrivesTheServer() {
    QTemporaryDir dir;
    Daemon d;
    QVERIFY2(d.start(simulated(dir.filePath("ctl.db"))), qPrintable(d.log()));
    const QString server = QString::fromStdString(d.address());
    auto ctl = [&](QStringList args, int expectCode) {
      QProcess p;
      p.setProcessChannelMode(QProcess::MergedChannels);
      p.start(TESSERA_BIN, QStringList{"ctl", "--server", server} + args);
      if (!p.waitForFinished(30000)) qFatal("tessera ctl did not finish");
      const QString out = QString::fromUtf8(p.readAll());
      if (p.exitCode() != expectCode)
        qFatal("tessera ctl %s: exit %d, expected %d:\n%s", qPrintable(args.join(' ')),
               p.exitCode(), expectCode, qPrintable(out));
      return out;
    };
    // 512 GPUs on a 392-GPU cluster can never run: refused at submit, naming the field.
    const QString tooBig = ctl({"submit", "--team", "vision", "--priority", "experiment", "--gpus",
                                "8", "--tasks", "64", "--name", "too-big"},
                               4);
    QVERIFY2(tooBig.contains("tasks: job") && tooBig.contains("can never run on this cluster"),
             qPrintable(tooBig));
    const QString submitted = ctl({"submit", "--team", "vision", "--priority", "experiment",
                                   "--gpus", "8", "--tasks", "2", "--name", "waits", "--held"},
                                  0);
    static const QRegularExpression idRe(R"((\d+))");
    const QString id = idRe.match(submitted).captured(1);
    QVERIFY2(!id.isEmpty(), qPrintable(submitted));
    QVERIFY(ctl({"get", id}, 0).contains("waits"));
    QVERIFY(ctl({"get", id, "-o", "json"}, 0).contains("\"held\": true"));
    QVERIFY(ctl({"release", id, "--dry-run"}, 0).contains("dry run"));
    QVERIFY(ctl({"get", id, "-o", "json"}, 0).contains("\"held\": true"));
    QVERIFY(ctl({"explain", id}, 0).contains("held"));
    QVERIFY(ctl({"list", "--team", "vision"}, 0).contains("waits"));
    QVERIFY(ctl({"snapshot"}, 0).contains("simulated-live"));
    QVERIFY(ctl({"watch", "--after", "0", "--count", "3"}, 0).count('\n') >= 3);
    QVERIFY(ctl({"drain", "pod-a-02", "--reason", "psu", "--dry-run"}, 0).contains("dry run"));
    QVERIFY(ctl({"get", "987654"}, 4).contains("not found"));
    QVERIFY(ctl({"repartition", "inf-01/2", "9g.99gb"}, 4).contains("invalid argument"));
    QCOMPARE(ctl({"health"}, 0).trimmed(), QString("SERVING"));
    QCOMPARE(d.terminate(), 0);
    QVERIFY(ctl({"health", "--timeout", "2"}, 3).contains("unavailable"));
  }

  // A write fails and the stored state cannot be read back (another process spoiled it and holds
  // the write lock): the server refuses all work, and every health surface says so and why.
  void healthGoesNotServingWhenTheBackendStops() {
    QTemporaryDir dir;
    const QString db = dir.filePath("health.db");
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", db, "--cycle-interval", "0.2"}),
             qPrintable(d.log()));
    const QString server = QString::fromStdString(d.address());
    QVERIFY(d.scrapeMetrics().contains("\ntessera_backend_up 1\n"));
    QCOMPARE(runCtl(server, {"health"}, 0).trimmed(), QString("SERVING"));
    runCtl(server, {"submit", "--team", "vision", "--gpus", "1", "--name", "first"}, 0);

    sqlite3* other = nullptr;
    QCOMPARE(sqlite3_open(db.toUtf8().constData(), &other), SQLITE_OK);
    sqlite3_busy_timeout(other, 5000);
    QCOMPARE(sqlite3_exec(other, "UPDATE meta SET value = 'not json' WHERE key = 'global'", nullptr,
                          nullptr, nullptr),
             SQLITE_OK);
    QCOMPARE(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
    QVERIFY(runCtl(server, {"submit", "--team", "vision", "--gpus", "1", "--name", "second"}, 3)
                .contains("unavailable"));
    sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(other);

    const QString health = runCtl(server, {"health"}, 4);
    QVERIFY2(health.startsWith("NOT_SERVING: a write failed"), qPrintable(health));
    QVERIFY2(
        health.contains("the state could not be reloaded") && health.contains("restart tesserad"),
        qPrintable(health));
    const auto json =
        nlohmann::json::parse(runCtl(server, {"health", "-o", "json"}, 4).toStdString());
    QCOMPARE(json.at("status").get<std::string>(), std::string("NOT_SERVING"));
    QCOMPARE(QString::fromStdString(json.at("reason").get<std::string>()),
             health.mid(QStringLiteral("NOT_SERVING: ").size()).trimmed());
    const QByteArray metrics = d.scrapeMetrics();
    QVERIFY2(metrics.contains("\ntessera_backend_up 0\n"), metrics.constData());
    // Later work is still refused with the reason, even once the lock is gone.
    QVERIFY(runCtl(server, {"submit", "--team", "vision", "--gpus", "1"}, 3)
                .contains("restart tesserad"));
    QVERIFY(d.terminate() != -1);
    QVERIFY2(d.log().contains("not serving: a write failed"), qPrintable(d.log()));
  }

  // `tessera ctl telemetry push` (PushTelemetry): a node's dcgm-exporter scrape reaches a live
  // server and shows in its snapshot; malformed text is refused naming its line; a
  // simulated-live server, which synthesizes its own telemetry, refuses every push. The
  // expected values are read off tests/data/dcgm/reference-sample.prom by hand.
  void telemetryPushFeedsALiveServer() {
    QTemporaryDir dir;
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", dir.filePath("telemetry.db")}),
             qPrintable(d.log()));
    const QString server = QString::fromStdString(d.address());
    const QString sample = QStringLiteral(TESSERA_TEST_DATA "/dcgm/reference-sample.prom");
    // The scrape has rows for gpu="0" (a whole GPU) and gpu="1" (two MIG instances) of a host
    // the demo cluster does not know (gpu-node-07): --node names the node instead.
    QString out = runCtl(server, {"telemetry", "push", sample, "--node", "pod-a-01"}, 0);
    QVERIFY2(out.contains("2 GPUs updated"), qPrintable(out));
    QVERIFY2(!out.contains("warning:"), qPrintable(out));

    auto c = d.client();
    auto gpuOf = [&](const std::string& node, uint32_t index) {
      return test::snapshotGpu(*c, node, index);
    };
    const v1::SnapshotGpu gpu0 = gpuOf("pod-a-01", 0);
    // DCGM_FI_DEV_GPU_UTIL 94 (percent), SM_ACTIVE 0.701554, PIPE_TENSOR_ACTIVE 0.388020,
    // GPU_TEMP 61, XID_ERRORS 0.
    QVERIFY(gpu0.has_util());
    QVERIFY2(std::abs(gpu0.util() - 0.94) < 1e-9, std::to_string(gpu0.util()).c_str());
    QVERIFY(gpu0.has_sm_active() && std::abs(gpu0.sm_active() - 0.701554) < 1e-9);
    QVERIFY(gpu0.has_tensor_active() && std::abs(gpu0.tensor_active() - 0.388020) < 1e-9);
    QVERIFY(gpu0.has_temperature_c() && std::abs(gpu0.temperature_c() - 61) < 1e-9);
    QCOMPARE(gpu0.fault().xid(), 0);
    QVERIFY(gpu0.has_util() && !gpuOf("pod-a-01", 7).has_util());  // not in the scrape
    QVERIFY(!gpuOf("pod-a-02", 0).has_util());

    // From stdin (the default), as a node agent's pipe sends it, with JSON output.
    QByteArray text = QByteArray::fromStdString(readText(sample));
    text.replace("gpu=\"0\"", "gpu=\"3\"");  // the same rows, now about GPU 3 and GPU 1
    out = runCtl(server, {"telemetry", "push", "--node", "pod-a-02", "-o", "json"}, 0, text);
    QVERIFY2(out.contains("\"gpus\": 2"), qPrintable(out));
    // Readings alone reach a snapshot already being read within telemetry.refresh (1 s).
    QTRY_VERIFY_WITH_TIMEOUT(gpuOf("pod-a-02", 3).has_util(), 5000);
    QVERIFY(std::abs(gpuOf("pod-a-02", 3).util() - 0.94) < 1e-9);

    // Rows the cluster cannot place are left out; when that is every row, nothing is updated
    // and the push fails (INVALID_ARGUMENT, exit 4), naming the host and the way out.
    out = runCtl(server, {"telemetry", "push", sample}, 4);
    QVERIFY2(out.contains("nothing taken") && out.contains("gpu-node-07") && out.contains("--node"),
             qPrintable(out));

    // Malformed text: INVALID_ARGUMENT naming the source (by default the file) and the line.
    const std::string bad = writeFile(dir, "bad.prom",
                                      "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
                                      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"pod-a-01\"} 40\n"
                                      "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",Hostname=\"pod-a-01\" 40\n");
    out = runCtl(server, {"telemetry", "push", QString::fromStdString(bad)}, 4);
    QVERIFY2(out.contains("invalid argument") && out.contains(QString::fromStdString(bad) + ":3:"),
             qPrintable(out));
    out = runCtl(server, {"telemetry", "push", "--source", "pod-a-01:9400"}, 4,
                 QByteArray::fromStdString(readText(QString::fromStdString(bad))));
    QVERIFY2(out.contains("pod-a-01:9400:3:"), qPrintable(out));
    // Nothing of the refused scrape was taken: GPU 0 keeps the reading pushed first.
    QVERIFY(std::abs(gpuOf("pod-a-01", 0).util() - 0.94) < 1e-9);
    // A missing file is the client's usage error; nothing is sent.
    QVERIFY(runCtl(server, {"telemetry", "push", dir.filePath("absent.prom")}, 2)
                .contains("absent.prom"));
    QCOMPARE(std::get<rpc::ServerHealth>(c->health()).status, std::string("SERVING"));
    QCOMPARE(d.terminate(), 0);

    Daemon sim;
    QVERIFY2(sim.start(simulated(dir.filePath("sim.db"))), qPrintable(sim.log()));
    out = runCtl(QString::fromStdString(sim.address()),
                 {"telemetry", "push", sample, "--node", "pod-a-01"}, 4);
    QVERIFY2(out.contains("failed precondition") && out.contains("simulated-live"),
             qPrintable(out));
    QCOMPARE(sim.terminate(), 0);
  }

  // A watcher that stops reading fills its own HTTP/2 window and nothing else: submits are
  // still acknowledged and another watcher still sees every event.
  void aStalledWatcherDelaysNobody() {
    QTemporaryDir dir;
    Daemon d;
    QVERIFY2(d.start(simulated(dir.filePath("slow.db")) << "--rate-limit"
                                                        << "100000"),
             qPrintable(d.log()));
    auto c = d.client();
    grpc::ClientContext stalledCtx;
    auto stalled = c->stub().WatchEvents(&stalledCtx, v1::WatchEventsRequest{});  // never read
    std::atomic<uint64_t> lastSeen{0};
    std::atomic<uint64_t> until{UINT64_MAX};
    std::thread reader([&] {
      c->watch(0, [&](const Event& e) {
        lastSeen = e.seq;
        return e.seq < until.load();
      });
    });
    uint64_t lastAcked = 0;
    for (int i = 0; i < 40; ++i) {
      std::vector<Job> jobs(250, demoJob(4));
      ok(await<std::vector<JobId>>([&](auto r) { c->submit(jobs, Caller{}, std::nullopt, r); }));
      lastAcked = ok(await<ClusterSnapshot>([&](auto r) { c->snapshot(r); })).lastEventSeq;
    }
    QVERIFY(lastAcked > 10000);  // far more than a stalled stream's window holds
    until = lastAcked;
    QTRY_VERIFY_WITH_TIMEOUT(lastSeen.load() >= lastAcked, 15000);
    reader.join();
    stalledCtx.TryCancel();
    QCOMPARE(d.terminate(), 0);
  }

  // GetReport over a busy simulated cluster: the JSON form reads back with reportFromJson (what
  // RemoteSession::report does), one CSV table, a price table sent as text, field errors as
  // INVALID_ARGUMENT naming the field, and `tessera ctl report`.
  void reportsComeBackAsJsonOrOneCsvTable() {
    QTemporaryDir dir;
    Daemon d;
    QVERIFY2(d.start({"--mode", "simulated-live", "--db", dir.filePath("report.db"),
                      "--cycle-interval", "0.1", "--speed", "3600"}),
             qPrintable(d.log()));
    auto c = d.client();
    // A few simulated hours with GPUs held (an empty database is an empty range: refused).
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          auto r = await<Report>([&](auto reply) { c->report(ReportRequest{}, reply); });
          return std::holds_alternative<Report>(r) && std::get<Report>(r).total.allocated > 0;
        }(),
        60000);
    ReportRequest byPool;
    byPool.groupBy = ReportGroup::Pool;
    byPool.teams = {"vision", "llm"};
    byPool.timeZone = "Europe/Berlin";
    const Report pools = ok(await<Report>([&](auto reply) { c->report(byPool, reply); }));
    QVERIFY(pools.header.groupBy == ReportGroup::Pool);
    QVERIFY(!pools.header.wallClock);
    QCOMPARE(pools.header.timeZone, std::string("Europe/Berlin"));
    QVERIFY(pools.header.to > pools.header.from);
    QVERIFY(pools.header.currency.empty());

    // The raw answer: JSON by default, one line.
    v1::GetReportResponse response;
    QVERIFY(getReport(*c, v1::GetReportRequest{}, response).ok());
    QCOMPARE(response.content_type(), std::string("application/json"));
    auto parsed = reportFromJson(response.content(), d.address());
    QVERIFY2(parsed, parsed ? "" : parsed.error().str().c_str());
    QVERIFY(parsed->header.groupBy == ReportGroup::Team);
    QVERIFY(!parsed->usage.empty());
    // One CSV table, its key column named by the group.
    v1::GetReportRequest csv;
    csv.set_format("csv");
    csv.set_table("usage");
    csv.set_group_by("pool");
    csv.set_to(parsed->header.to);
    QVERIFY(getReport(*c, csv, response).ok());
    QVERIFY2(response.content().starts_with("pool,gpu_hours_allocated"),
             response.content().c_str());
    QVERIFY(response.content_type().starts_with("text/csv"));
    // A price table travels as text (RemoteSession writes the parsed table back to YAML).
    ReportRequest priced;
    priced.prices = *parsePriceTable("currency: EUR\ndefault_gpu_hour: 2.5\n", "prices.yaml");
    const Report costs = ok(await<Report>([&](auto reply) { c->report(priced, reply); }));
    QCOMPARE(costs.header.currency, std::string("EUR"));
    QVERIFY(costs.total.cost && *costs.total.cost > 0);
    QVERIFY(!costs.chargeback.empty());

    // Refusals name the field.
    v1::GetReportRequest bad;
    bad.set_group_by("x");
    expectRefused(*c, bad, grpc::StatusCode::INVALID_ARGUMENT,
                  "group_by: unknown group 'x' (team, department, queue, pool, model, node, job)");
    bad = {};
    bad.add_teams("nobody");
    expectRefused(*c, bad, grpc::StatusCode::INVALID_ARGUMENT, "teams: unknown team 'nobody'");
    bad = {};
    bad.set_time_zone("Mars/Olympus");
    expectRefused(*c, bad, grpc::StatusCode::INVALID_ARGUMENT, "time_zone: unknown time zone");
    bad = {};
    bad.set_from(5000);
    bad.set_to(100);
    expectRefused(*c, bad, grpc::StatusCode::INVALID_ARGUMENT, "to: must be after from");
    bad = {};
    bad.set_format("csv");
    bad.set_table("chargeback");
    expectRefused(*c, bad, grpc::StatusCode::INVALID_ARGUMENT, "table: chargeback needs a price");
    bad.set_table("nope");
    expectRefused(*c, bad, grpc::StatusCode::INVALID_ARGUMENT, "table: unknown table 'nope'");
    bad = {};
    bad.set_format("xml");
    expectRefused(*c, bad, grpc::StatusCode::INVALID_ARGUMENT, "format: 'xml'");
    bad = {};
    bad.set_prices_yaml("gpu_hour: [");
    expectRefused(*c, bad, grpc::StatusCode::INVALID_ARGUMENT, "prices_yaml:");
    bad.set_prices_yaml("gpu_hour: {NO-SUCH-GPU: 1}\n");
    expectRefused(*c, bad, grpc::StatusCode::INVALID_ARGUMENT, "has no price for");
    QCOMPARE(kindOf(await<Report>([&](auto reply) {
               ReportRequest r;
               r.teams = {"nobody"};
               c->report(r, reply);
             })),
             ErrorKind::InvalidArgument);

    // The shell client: one CSV table of the last simulated hours, and its errors.
    const QString server = QString::fromStdString(d.address());
    const std::string summary =
        runCtl(server, {"report", "--from", "-2h", "--format", "csv", "--table", "summary"}, 0)
            .toStdString();
    QCOMPARE(csvValue(summary, "group_by"), std::string("team"));
    // From two hours before the server's clock to its last commit, a moment later.
    const Seconds span =
        std::stoll(csvValue(summary, "to_seconds")) - std::stoll(csvValue(summary, "from_seconds"));
    QVERIFY2(span > 3600 && span < 4 * 3600, summary.c_str());
    auto whole =
        reportFromJson(runCtl(server, {"report", "--group-by", "model"}, 0).toStdString(), "ctl");
    QVERIFY2(whole, whole ? "" : whole.error().str().c_str());
    QVERIFY(whole->header.groupBy == ReportGroup::GpuModel);
    QVERIFY(runCtl(server, {"report", "--group-by", "x"}, 2).contains("--group-by"));
    QVERIFY(runCtl(server, {"report", "--format", "csv"}, 2).contains("--table"));
    QVERIFY(runCtl(server, {"report", "--from", "yesterday"}, 2).contains("--from"));
    QVERIFY(runCtl(server, {"report", "--team", "nobody"}, 4).contains("invalid argument"));

    QCOMPARE(std::get<rpc::ServerHealth>(c->health()).status, std::string("SERVING"));
    QCOMPARE(d.terminate(), 0);
  }

  // tesserad writes the daily report at each simulated midnight: a simulated day passes in six
  // seconds here, and the files of the first day hold that day.
  void scheduledReportsAreWrittenAtPeriodEnds() {
    QTemporaryDir dir;
    const QString reports = dir.filePath("reports");
    const std::string config = writeFile(
        dir, "tesserad.yaml",
        "reports:\n"
        "  dir: " +
            reports.toStdString() +
            "\n"
            "  schedules:\n"
            "    - {name: teams-daily, every: daily, group_by: team, formats: [csv, json],\n"
            "       time_zone: UTC}\n");
    Daemon d;
    QVERIFY2(d.start({"--mode", "simulated-live", "--db", dir.filePath("sched.db"),
                      "--cycle-interval", "0.1", "--speed", "14400", "--arrivals-per-hour", "40",
                      "--config", QString::fromStdString(config)}),
             qPrintable(d.log()));
    const QString stem = reports + "/teams-daily-1970-01-01";
    // JSON is written after the CSV set: once it is there, both are.
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(stem + ".json"), 120000);
    auto report = loadReportJsonFile((stem + ".json").toStdString());
    QVERIFY2(report, report ? "" : report.error().str().c_str());
    QCOMPARE(report->header.from, Seconds{0});
    QCOMPARE(report->header.to, Seconds{86400});
    QVERIFY(!report->header.wallClock);
    QVERIFY(report->total.allocated > 0);
    const std::string summary = readText(stem + "-summary.csv");
    QCOMPARE(csvValue(summary, "from_seconds"), std::string("0"));
    QCOMPARE(csvValue(summary, "to_seconds"), std::string("86400"));
    QCOMPARE(csvValue(summary, "group_by"), std::string("team"));
    for (const char* table : {"usage", "waits", "notes"})
      QVERIFY2(QFile::exists(stem + "-" + table + ".csv"), table);
    QTRY_VERIFY_WITH_TIMEOUT(d.log().contains("msg=\"report written\" schedule=teams-daily "
                                              "period=1970-01-01"),
                             10000);
    QCOMPARE(d.terminate(), 0);
    QVERIFY(!d.log().contains("report failed"));
  }

  void healthAndReflectionServeStandardTools() {
    QTemporaryDir dir;
    Daemon d;
    QVERIFY2(d.start(simulated(dir.filePath("refl.db"))), qPrintable(d.log()));
    auto channel = grpc::CreateChannel(d.address(), grpc::InsecureChannelCredentials());
    auto stub = grpc::reflection::v1alpha::ServerReflection::NewStub(channel);
    grpc::ClientContext ctx;
    auto stream = stub->ServerReflectionInfo(&ctx);
    grpc::reflection::v1alpha::ServerReflectionRequest req;
    req.set_list_services("");
    QVERIFY(stream->Write(req));
    stream->WritesDone();
    grpc::reflection::v1alpha::ServerReflectionResponse resp;
    QVERIFY(stream->Read(&resp));
    std::set<std::string> services;
    for (const auto& s : resp.list_services_response().service()) services.insert(s.name());
    QVERIFY(services.contains("tessera.v1.Scheduler"));
    QVERIFY(services.contains("grpc.health.v1.Health"));
    QVERIFY(stream->Finish().ok());
    QCOMPARE(std::get<rpc::ServerHealth>(d.client()->health()).status, std::string("SERVING"));
    QCOMPARE(d.terminate(), 0);
  }
};

QTEST_GUILESS_MAIN(TstRpcE2e)
#include "tst_rpc_e2e.moc"
