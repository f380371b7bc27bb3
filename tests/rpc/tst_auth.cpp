// Bearer-token authentication: the token file (good files and every kind of error, each located
// by file:line and field), token lookup, roles, hashing, token generation, the "authorization"
// header and the per-identity rate limiter; and the roles matrix: every role (and no token)
// against every gRPC call and every operator action of a real server, as the documentation states
// the policy.
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include <google/protobuf/descriptor.h>
#include <grpcpp/grpcpp.h>

#include "../service/backend_test_util.h"
#include "../service/demo_backend.h"
#include "rpc/auth.h"
#include "rpc/convert.h"
#include "rpc/server.h"
#include "service/backend.h"

using namespace tessera;
using namespace tessera::test;

namespace {

const std::string kAliceToken = "tsr_alice-secret";
const std::string kBobToken = "tsr_bob-secret";
const std::string kCarolToken = "tsr_carol-secret";

std::string entry(const std::string& name, const std::string& role, const std::string& hash) {
  return "  - name: " + name + "\n    role: " + role + "\n    sha256: " + hash + "\n";
}

std::string goodFile() {
  return "# who may talk to tesserad\ntokens:\n" +
         entry("alice", "operator", sha256Hex(kAliceToken)) +
         entry("bob", "viewer", sha256Hex(kBobToken)) +
         entry("carol@example.com", "admin", sha256Hex(kCarolToken));
}

std::string errorText(const Expected<TokenBook>& book) {
  return book.ok() ? std::string("(no error)") : book.error().str();
}

// ---- the roles matrix ----------------------------------------------------------------------

// Who may do what, written out from the documented policy (docs/tesserad.md#security, the role
// column of docs/api.md), never derived from the server's own table (permits, requiredRole): a
// change to that table must fail here.
const std::set<Role> kReaders{Role::Viewer, Role::Operator, Role::Admin};
const std::set<Role> kOperators{Role::Operator, Role::Admin};
const std::set<Role> kAdmins{Role::Admin};
const std::set<Role> kPushers{Role::Agent, Role::Operator, Role::Admin};

// What the calls act on: jobs, a node and a reservation in the state each action needs, so
// that an allowed call succeeds (OK) rather than failing for some other reason.
struct Targets {
  JobId pending = kNoJob;  // never fits: stays pending
  JobId held = kNoJob;
  JobId running = kNoJob;
  std::string drainedNode = "pod-a-04";
  std::string reservation = "maintenance";
  std::string backupDir;
};

using Stub = v1::Scheduler::Stub;
using Call = std::function<grpc::Status(Stub&, grpc::ClientContext&)>;

struct MatrixRow {
  std::string method;  // the Scheduler method
  std::string action;  // Act's oneof field, for Act rows
  std::set<Role> allowed;
  Call call;
  v1::ActRequest act{};  // what an Act row sends
};

template <typename Request, typename Response, typename Method>
Call unary(Method method, Request request) {
  return [method, request](Stub& stub, grpc::ClientContext& ctx) {
    Response response;
    return (stub.*method)(&ctx, request, &response);
  };
}

// A dry run: the role check is the same as for applying, and nothing changes, so every allowed
// caller finds the same state.
MatrixRow actRow(const std::string& action, const std::set<Role>& allowed,
                 const std::function<void(v1::ActRequest&)>& fill) {
  v1::ActRequest request;
  request.set_dry_run(true);
  fill(request);
  return {"Act", action, allowed, unary<v1::ActRequest, v1::ActResponse>(&Stub::Act, request),
          request};
}

v1::JobSpec smallJobSpec() {
  Job job = demoWorkload()->jobs[4];
  job.id = kNoJob;
  return rpc::jobSpecToProto(job);
}

// Streams from the first event: allowed when one arrives.
grpc::Status watchOneEvent(Stub& stub, grpc::ClientContext& ctx) {
  auto reader = stub.WatchEvents(&ctx, v1::WatchEventsRequest{});
  v1::WatchEventsResponse first;
  if (!reader->Read(&first)) return reader->Finish();
  ctx.TryCancel();
  (void)reader->Finish();
  return grpc::Status::OK;
}

std::vector<MatrixRow> callRows(const Targets& t) {
  v1::SubmitRequest submit;
  *submit.mutable_job() = smallJobSpec();
  v1::SubmitBatchRequest batch;
  *batch.add_jobs() = smallJobSpec();
  v1::GetJobRequest getJob;
  getJob.set_id(t.pending);
  v1::CancelJobRequest cancel;
  cancel.set_id(t.pending);
  cancel.set_dry_run(true);
  v1::ExplainRequest explain;
  explain.set_job(t.pending);
  v1::GetReportRequest report;
  report.set_from(0);  // up to the clock: the demo backend's data is all at one instant
  v1::PushTelemetryRequest push;
  push.set_exposition("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"pod-a-01\"} 50\n");
  // A node outside the model: reporting it changes nothing the other rows need; the admin's
  // admission (the only allowed AdmitNode) comes after it and adds the node with its GPU.
  v1::ReportInventoryRequest inventory;
  inventory.set_node("new-node");
  inventory.set_hostname("new-node");
  auto* gpu = inventory.add_gpus();
  gpu->set_model("H100-SXM5-80GB");
  gpu->set_uuid("GPU-new-0");
  v1::AdmitNodeRequest admit;
  admit.set_node("new-node");
  // Each backup needs a new file.
  auto backups = std::make_shared<int>(0);
  const Call backup = [backups, dir = t.backupDir](Stub& stub, grpc::ClientContext& ctx) {
    v1::BackupRequest request;
    request.set_path(dir + "/backup-" + std::to_string(++*backups) + ".db");
    v1::BackupResponse response;
    return stub.Backup(&ctx, request, &response);
  };
  return {
      {"Submit", "", kOperators,
       unary<v1::SubmitRequest, v1::SubmitResponse>(&Stub::Submit, submit)},
      {"SubmitBatch", "", kOperators,
       unary<v1::SubmitBatchRequest, v1::SubmitBatchResponse>(&Stub::SubmitBatch, batch)},
      {"GetJob", "", kReaders, unary<v1::GetJobRequest, v1::Job>(&Stub::GetJob, getJob)},
      {"ListJobs", "", kReaders,
       unary<v1::ListJobsRequest, v1::ListJobsResponse>(&Stub::ListJobs, v1::ListJobsRequest{})},
      {"CancelJob", "", kOperators,
       unary<v1::CancelJobRequest, v1::ActResponse>(&Stub::CancelJob, cancel)},
      {"Explain", "", kReaders,
       unary<v1::ExplainRequest, v1::Explanation>(&Stub::Explain, explain)},
      {"GetSnapshot", "", kReaders,
       unary<v1::GetSnapshotRequest, v1::ClusterSnapshot>(&Stub::GetSnapshot,
                                                          v1::GetSnapshotRequest{})},
      {"WatchEvents", "", kReaders, watchOneEvent},
      {"QueryMetrics", "", kReaders,
       unary<v1::QueryMetricsRequest, v1::QueryMetricsResponse>(&Stub::QueryMetrics,
                                                                v1::QueryMetricsRequest{})},
      {"GetReport", "", kReaders,
       unary<v1::GetReportRequest, v1::GetReportResponse>(&Stub::GetReport, report)},
      {"PushTelemetry", "", kPushers,
       unary<v1::PushTelemetryRequest, v1::PushTelemetryResponse>(&Stub::PushTelemetry, push)},
      {"ReportInventory", "", kPushers,
       unary<v1::ReportInventoryRequest, v1::ReportInventoryResponse>(&Stub::ReportInventory,
                                                                      inventory)},
      {"ListNodeInventory", "", kReaders,
       unary<v1::ListNodeInventoryRequest, v1::ListNodeInventoryResponse>(
           &Stub::ListNodeInventory, v1::ListNodeInventoryRequest{})},
      {"AdmitNode", "", kAdmins,
       unary<v1::AdmitNodeRequest, v1::AdmitNodeResponse>(&Stub::AdmitNode, admit)},
      {"Backup", "", kAdmins, backup},
      {"WhoAmI", "", kReaders,
       unary<v1::WhoAmIRequest, v1::WhoAmIResponse>(&Stub::WhoAmI, v1::WhoAmIRequest{})},
      {"GetHealth", "", kReaders,
       unary<v1::GetHealthRequest, v1::GetHealthResponse>(&Stub::GetHealth,
                                                          v1::GetHealthRequest{})},
  };
}

// Every action of the one Command vocabulary that Act carries (Submit has its own calls).
std::vector<MatrixRow> actionRows(const Targets& t) {
  return {
      actRow("hold", kOperators, [&](auto& r) { r.mutable_hold()->set_job(t.pending); }),
      actRow("release", kOperators, [&](auto& r) { r.mutable_release()->set_job(t.held); }),
      actRow("cancel", kOperators, [&](auto& r) { r.mutable_cancel()->set_job(t.pending); }),
      actRow("preempt", kOperators, [&](auto& r) { r.mutable_preempt()->set_job(t.running); }),
      actRow("set_priority", kOperators,
             [&](auto& r) {
               r.mutable_set_priority()->set_job(t.pending);
               r.mutable_set_priority()->set_priority_class("experiment");
             }),
      actRow("move", kOperators,
             [&](auto& r) {
               r.mutable_move()->set_job(t.pending);
               r.mutable_move()->set_to(v1::MOVE_POSITION_BOTTOM);
             }),
      actRow("pin", kOperators,
             [&](auto& r) {
               r.mutable_pin()->set_job(t.held);
               r.mutable_pin()->add_nodes("pod-a-01");
               r.mutable_pin()->add_nodes("pod-a-02");
             }),
      actRow("repartition", kAdmins,
             [&](auto& r) {
               r.mutable_repartition()->set_gpu("inf-01/4");
               r.mutable_repartition()->set_layout("7g.80gb@0");
             }),
      actRow("drain", kAdmins,
             [&](auto& r) {
               r.mutable_drain()->set_node("pod-a-03");
               r.mutable_drain()->set_reason("psu");
             }),
      actRow("undrain", kAdmins, [&](auto& r) { r.mutable_undrain()->set_node(t.drainedNode); }),
      actRow("set_quota", kAdmins,
             [&](auto& r) {
               auto* q = r.mutable_set_quota();
               q->set_team("ads");
               q->set_key("*");
               q->set_guaranteed(8);
               q->set_borrow_limit(8);
             }),
      actRow("create_reservation", kAdmins,
             [&](auto& r) {
               auto* x = r.mutable_create_reservation();
               x->set_id("window");
               x->add_nodes("pod-a-06");
               x->set_from(10000);
               x->set_until(20000);
             }),
      actRow("delete_reservation", kAdmins,
             [&](auto& r) { r.mutable_delete_reservation()->set_id(t.reservation); }),
  };
}

// The demo backend with the targets set up, as the local admin would (no server involved).
Targets prepare(Backend& b, const QTemporaryDir& dir) {
  Targets t;
  t.backupDir = dir.path().toStdString();
  const auto workload = demoWorkload();
  const auto& jobs = workload->jobs;
  Job big = demoJobThatWaits();
  Job held = jobs[3];
  held.held = true;
  Job small = jobs[4];
  for (Job* j : {&big, &held, &small}) j->id = kNoJob;
  const auto ids = ok(await<std::vector<JobId>>([&](auto r) {
    b.submit({big, held, small}, Caller{}, std::nullopt, r);
  }));
  ok(await<CycleStats>([&](auto r) { b.cycleNow(r); }));
  t.pending = ids[0];
  t.held = ids[1];
  t.running = ids[2];
  const Command setup[] = {cmd::Drain{t.drainedNode, literal("firmware")},
                           cmd::CreateReservation{t.reservation, {"pod-a-05"}, 10000, 20000, ""}};
  for (const Command& c : setup)
    ok(await<CommandResult>([&](auto r) { b.act(c, false, Caller{}, std::nullopt, r); }));
  const auto running = ok(await<JobInfo>([&](auto r) { b.job(t.running, r); }));
  if (running.row.state != JobState::Running) qFatal("the small demo job did not start");
  return t;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

std::string codeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "code " + std::to_string(static_cast<int>(code));
  }
}

// One party calling tesserad: a role's token, a token the file does not list, or none.
struct Party {
  std::string label;
  std::optional<Role> role;  // nullopt: not authenticated
  std::string token;         // empty: no authorization header
};

// What a caller gets, as the policy says: no valid token is UNAUTHENTICATED whatever the call,
// an allowed role succeeds, any other is PERMISSION_DENIED.
grpc::StatusCode expectedCode(std::optional<Role> caller, const MatrixRow& row) {
  if (!caller) return grpc::StatusCode::UNAUTHENTICATED;
  return row.allowed.count(*caller) ? grpc::StatusCode::OK : grpc::StatusCode::PERMISSION_DENIED;
}

}  // namespace

class TstAuth : public QObject {
  Q_OBJECT

 private slots:
  void parsesAGoodFile() {
    auto book = TokenBook::parse(goodFile(), "tokens.yaml");
    QVERIFY2(book.ok(), errorText(book).c_str());
    QCOMPARE(book->size(), size_t{3});
    QCOMPARE(*book->authenticate(kAliceToken), (Identity{"alice", Role::Operator}));
    QCOMPARE(*book->authenticate(kBobToken), (Identity{"bob", Role::Viewer}));
    QCOMPARE(*book->authenticate(kCarolToken), (Identity{"carol@example.com", Role::Admin}));
  }

  void loadsAFileAndSaysWhyOneCannotBeRead() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("tokens.yaml").toStdString();
    std::ofstream(path) << goodFile();
    auto book = TokenBook::load(path);
    QVERIFY2(book.ok(), errorText(book).c_str());
    QCOMPARE(book->authenticate(kBobToken)->name, std::string("bob"));

    auto missing = TokenBook::load(dir.filePath("absent.yaml").toStdString());
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().str().find("absent.yaml: cannot read token file: No such file") !=
                 std::string::npos,
             errorText(missing).c_str());
    auto directory = TokenBook::load(dir.path().toStdString());
    QVERIFY(!directory.ok());
    QVERIFY2(directory.error().message.find("not a regular file") != std::string::npos,
             errorText(directory).c_str());
    QCOMPARE(directory.error().where.file, dir.path().toStdString());
  }

  void refusesBrokenFiles_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("where");  // expected start of Error::str(): file:line[:col]: field
    QTest::addColumn<QString>("message");
    const std::string a = sha256Hex(kAliceToken);
    const std::string b = sha256Hex(kBobToken);
    const auto row = [](const char* tag, const std::string& yaml, const char* where,
                        const char* message) {
      QTest::newRow(tag) << QString::fromStdString(yaml) << where << message;
    };
    row("duplicate name", "tokens:\n" + entry("alice", "admin", a) + entry("alice", "viewer", b),
        "t.yaml:5:11: tokens[1].name", "duplicate name 'alice' (also at line 2)");
    row("bad role", "tokens:\n" + entry("alice", "root", a), "t.yaml:3:11: tokens[0].role",
        "unknown role 'root' (allowed: viewer, operator, admin, agent)");
    row("short hash", "tokens:\n" + entry("alice", "admin", "abc123"),
        "t.yaml:4:13: tokens[0].sha256", "malformed hash");
    row("uppercase hash",
        "tokens:\n" + entry("alice", "admin", QByteArray::fromStdString(a).toUpper().toStdString()),
        "t.yaml:4:13: tokens[0].sha256", "got other characters");
    row("clear token", "tokens:\n" + entry("alice", "admin", kAliceToken),
        "t.yaml:4:13: tokens[0].sha256", "malformed hash");
    row("empty token's hash", "tokens:\n" + entry("alice", "admin", sha256Hex("")),
        "t.yaml:4:13: tokens[0].sha256", "hash of the empty token");
    row("duplicate hash", "tokens:\n" + entry("alice", "admin", a) + entry("bob", "viewer", a),
        "t.yaml:7:13: tokens[1].sha256", "two identities would share one token (also at line 4)");
    row("empty list", "# nobody yet\ntokens: []\n", "t.yaml:2:9: tokens", "token list is empty");
    row("null list", "tokens:\n", "t.yaml:1:1: tokens", "token list is empty");
    row("no list", "users: []\n", "t.yaml:1:1: users", "unknown field 'users'");
    row("empty file", "", "t.yaml", "expected a map with the key 'tokens'");
    row("missing field", "tokens:\n  - name: alice\n    role: admin\n", "t.yaml:2:5: tokens[0]",
        "missing required field 'sha256'");
    row("token in clear", "tokens:\n  - name: alice\n    role: admin\n    token: x\n",
        "t.yaml:4:5: tokens[0].token", "never stored in clear");
    row("duplicate key", "tokens:\n" + entry("alice", "admin", a) + "    role: viewer\n",
        "t.yaml:5:5: tokens[0].role", "duplicate key 'role'");
    row("bad name", "tokens:\n" + entry("\"al ice\"", "admin", a), "t.yaml:2:11: tokens[0].name",
        "invalid name 'al ice'");
    row("entry not a map", "tokens:\n  - alice\n", "t.yaml:2:5: tokens[0]",
        "expected an entry with name, role and sha256");
    row("syntax", "tokens:\n  - name: [alice\n", "t.yaml:3:", "YAML syntax error");
  }

  void refusesBrokenFiles() {
    QFETCH(QString, yaml);
    QFETCH(QString, where);
    QFETCH(QString, message);
    auto book = TokenBook::parse(yaml.toStdString(), "t.yaml");
    QVERIFY(!book.ok());
    const QString text = QString::fromStdString(book.error().str());
    QVERIFY2(text.startsWith(where), qPrintable(text));
    QVERIFY2(text.contains(message), qPrintable(text));
    QCOMPARE(book.error().where.file, std::string("t.yaml"));
  }

  void authenticatesOnlyTheExactToken() {
    auto book = TokenBook::parse(goodFile(), "tokens.yaml");
    QVERIFY(book.ok());
    QVERIFY(book->authenticate(kAliceToken).has_value());
    QVERIFY(!book->authenticate("tsr_wrong").has_value());
    QVERIFY(!book->authenticate("").has_value());
    QVERIFY(!book->authenticate(kAliceToken + "x").has_value());
    QVERIFY(!book->authenticate(kAliceToken.substr(0, kAliceToken.size() - 1)).has_value());
    QVERIFY(!book->authenticate(sha256Hex(kAliceToken)).has_value());  // the hash is no token
    QVERIFY(!TokenBook().authenticate(kAliceToken).has_value());
    QCOMPARE(TokenBook().size(), size_t{0});
  }

  // The table covers the whole API: every method of the service, every action Act carries and,
  // with Submit, every kind of the Command vocabulary. A new call or action needs a row.
  void theRolesMatrixCoversEveryCallAndAction() {
    Targets t;
    t.pending = 1;
    t.held = 2;
    t.running = 3;
    std::set<std::string> methods, actions;
    std::set<size_t> commandKinds{Command(cmd::Submit{}).index()};  // Submit, SubmitBatch
    for (const MatrixRow& row : callRows(t)) methods.insert(row.method);
    for (const MatrixRow& row : actionRows(t)) {
      methods.insert(row.method);
      actions.insert(row.action);
      const auto command = rpc::commandFromProto(row.act);  // as the server decodes the request
      QVERIFY2(command.ok(), (row.action + ": " + (command ? "" : command.error().str())).c_str());
      commandKinds.insert(command->index());
    }
    std::set<std::string> serviceMethods;
    const auto* service = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
        v1::Scheduler::service_full_name());
    QVERIFY(service);
    for (int i = 0; i < service->method_count(); ++i)
      serviceMethods.insert(service->method(i)->name());
    QCOMPARE(joined(methods), joined(serviceMethods));
    std::set<std::string> oneofFields;
    const auto* oneof = v1::ActRequest::descriptor()->FindOneofByName("action");
    QVERIFY(oneof);
    for (int i = 0; i < oneof->field_count(); ++i) oneofFields.insert(oneof->field(i)->name());
    QCOMPARE(joined(actions), joined(oneofFields));
    QCOMPARE(commandKinds.size(), std::variant_size_v<Command>);
  }

  // Every role, an unknown token and no token, against every call and every action of a real
  // server: allowed is OK, refused is PERMISSION_DENIED, unauthenticated is UNAUTHENTICATED.
  void everyRoleGetsWhatThePolicySays() {
    QTemporaryDir dir;
    auto backend = openDemoBackend(dir.filePath("roles.db"));
    const Targets targets = prepare(*backend, dir);
    std::vector<Party> parties;
    std::string file = "tokens:\n";
    for (Role role : {Role::Viewer, Role::Operator, Role::Admin, Role::Agent}) {
      const std::string token = *generateToken();
      const std::string name = std::string(roleName(role)) + "-user";
      file += entry(name, roleName(role), sha256Hex(token));
      parties.push_back({name, role, token});
    }
    parties.push_back({"an unknown token", std::nullopt, "tsr_not-in-the-file"});
    parties.push_back({"no token", std::nullopt, ""});
    auto book = TokenBook::parse(file, "tokens.yaml");
    QVERIFY2(book.ok(), errorText(book).c_str());
    rpc::ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.tokens = *book;
    auto server = rpc::ApiServer::start(*backend, options);
    QVERIFY2(server.ok(), server.ok() ? "" : server.error().str().c_str());
    auto stub = v1::Scheduler::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string((*server)->port()), grpc::InsecureChannelCredentials()));

    std::vector<MatrixRow> rows = callRows(targets);
    for (MatrixRow& row : actionRows(targets)) rows.push_back(std::move(row));
    std::string wrong;
    size_t checked = 0;
    for (const MatrixRow& row : rows)
      for (const Party& party : parties) {
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
        if (!party.token.empty()) ctx.AddMetadata("authorization", "Bearer " + party.token);
        const grpc::Status got = row.call(*stub, ctx);
        const grpc::StatusCode expected = expectedCode(party.role, row);
        ++checked;
        if (got.error_code() == expected) continue;
        wrong += row.method + (row.action.empty() ? "" : " " + row.action) + " as " + party.label +
                 ": " + codeName(got.error_code()) + " (" + got.error_message() + "), expected " +
                 codeName(expected) + "\n";
      }
    (*server)->shutdown();
    QVERIFY2(wrong.empty(), wrong.c_str());
    QCOMPARE(checked, rows.size() * parties.size());
  }

  void rolesAreOrdered() {
    QVERIFY(Role::Viewer < Role::Operator && Role::Operator < Role::Admin);
    QVERIFY(permits(Role::Admin, Role::Operator));
    QVERIFY(permits(Role::Admin, Role::Viewer));
    QVERIFY(permits(Role::Operator, Role::Operator));
    QVERIFY(!permits(Role::Operator, Role::Admin));
    QVERIFY(!permits(Role::Viewer, Role::Operator));
    // An agent may push telemetry and nothing else; operators and admins may push too.
    QVERIFY(permits(Role::Agent, Role::Agent));
    for (Role r : {Role::Viewer, Role::Operator, Role::Admin}) {
      QVERIFY(!permits(Role::Agent, r));
      QCOMPARE(permits(r, Role::Agent), r != Role::Viewer);
    }
    for (Role r : {Role::Viewer, Role::Operator, Role::Admin, Role::Agent})
      QCOMPARE(parseRole(roleName(r)), std::optional<Role>(r));
    QCOMPARE(std::string(roleName(Role::Operator)), std::string("operator"));
    QCOMPARE(parseRole("Admin"), std::optional<Role>(Role::Admin));
    QVERIFY(!parseRole("root").has_value());
    QVERIFY(!parseRole("").has_value());
  }

  void hashesWithSha256() {
    QCOMPARE(sha256Hex("abc"),
             std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(sha256Hex(""),
             std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  }

  void generatesDistinctWellFormedTokens() {
    std::set<std::string> seen;
    for (int i = 0; i < 200; ++i) {
      auto token = generateToken();
      QVERIFY2(token.ok(), token.ok() ? "" : token.error().str().c_str());
      QCOMPARE(token->size(), size_t{47});  // "tsr_" + 43 base64url characters for 32 bytes
      QVERIFY(token->starts_with("tsr_"));
      for (char c : token->substr(4))
        QVERIFY2(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_',
                 token->c_str());
      QCOMPARE(bearerToken("Bearer " + *token), std::optional<std::string_view>(*token));
      seen.insert(*token);
    }
    QCOMPARE(seen.size(), size_t{200});
    // A generated token works once its hash is in the file.
    const std::string token = *seen.begin();
    auto book = TokenBook::parse("tokens:\n" + entry("ci", "viewer", sha256Hex(token)), "t.yaml");
    QVERIFY(book.ok());
    QCOMPARE(book->authenticate(token)->name, std::string("ci"));
  }

  void parsesTheAuthorizationHeader_data() {
    QTest::addColumn<QString>("header");
    QTest::addColumn<QString>("token");  // null: malformed
    QTest::newRow("plain") << "Bearer abc"
                           << "abc";
    QTest::newRow("lowercase scheme") << "bearer abc"
                                      << "abc";
    QTest::newRow("shouting scheme") << "BEARER abc"
                                     << "abc";
    QTest::newRow("several spaces") << "Bearer    tsr_a-b.c~d+e/f"
                                    << "tsr_a-b.c~d+e/f";
    QTest::newRow("padding") << "Bearer YWJj=="
                             << "YWJj==";
    QTest::newRow("surrounding blanks") << " \tBearer abc \t"
                                        << "abc";
    QTest::newRow("no token") << "Bearer" << QString();
    QTest::newRow("only spaces") << "Bearer    " << QString();
    QTest::newRow("no space") << "Bearerabc" << QString();
    QTest::newRow("tab separator") << "Bearer\tabc" << QString();
    QTest::newRow("other scheme") << "Basic YWxhZGRpbjpvcGVuc2VzYW1l" << QString();
    QTest::newRow("two tokens") << "Bearer abc def" << QString();
    QTest::newRow("only padding") << "Bearer ==" << QString();
    QTest::newRow("padding inside") << "Bearer ab=c" << QString();
    QTest::newRow("bad character") << "Bearer ab\"c" << QString();
    QTest::newRow("empty") << "" << QString();
  }

  void parsesTheAuthorizationHeader() {
    QFETCH(QString, header);
    QFETCH(QString, token);
    const std::string h = header.toStdString();
    const auto got = bearerToken(h);
    if (token.isNull()) {
      QVERIFY2(!got.has_value(), std::string(got.value_or("")).c_str());
    } else {
      QVERIFY(got.has_value());
      QCOMPARE(std::string(*got), token.toStdString());
    }
  }

  void rateLimiterAllowsABurstThenRefills() {
    RateLimiter limiter(2.0, 3.0);  // 2 per second, bursts of 3
    QVERIFY(limiter.allow("alice", 100.0));
    QVERIFY(limiter.allow("alice", 100.0));
    QVERIFY(limiter.allow("alice", 100.0));
    QVERIFY(!limiter.allow("alice", 100.0));
    QVERIFY(!limiter.allow("alice", 100.2));  // 0.4 of a request refilled: not enough
    QVERIFY(limiter.allow("alice", 100.5));   // one refilled
    QVERIFY(!limiter.allow("alice", 100.5));
    QVERIFY(!limiter.allow("alice", 90.0));  // a clock running backwards refills nothing
    // A long pause refills up to the burst, not beyond.
    for (int i = 0; i < 3; ++i) QVERIFY(limiter.allow("alice", 1000.0));
    QVERIFY(!limiter.allow("alice", 1000.0));
  }

  void rateLimiterIsPerIdentity() {
    RateLimiter limiter(1.0, 1.0);
    QVERIFY(limiter.allow("alice", 0.0));
    QVERIFY(!limiter.allow("alice", 0.0));
    QVERIFY(limiter.allow("bob", 0.0));  // alice's exhaustion does not touch bob
    QVERIFY(!limiter.allow("bob", 0.0));
    // Forgetting idle callers (thousands of them) must not reset one that is still limited.
    for (int i = 0; i < 10000; ++i) QVERIFY(limiter.allow("caller-" + std::to_string(i), 0.5));
    QVERIFY(!limiter.allow("alice", 0.5));
    QVERIFY(limiter.allow("alice", 1.0));
  }

  void rateLimiterClampsNonsenseAndUsesTheClock() {
    RateLimiter never(0.0, 0.0);  // burst raised to 1, no refill
    QVERIFY(never.allow("x"));
    QVERIFY(!never.allow("x"));
    QVERIFY(!never.allow("x", 1e12));
  }

  void rateLimiterIsThreadSafe() {
    RateLimiter limiter(0.0, 100.0);
    std::atomic<int> allowed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 1000; ++i)
          if (limiter.allow("shared", 5.0)) ++allowed;
      });
    for (auto& t : threads) t.join();
    QCOMPARE(allowed.load(), 100);
  }
};

QTEST_GUILESS_MAIN(TstAuth)
#include "tst_auth.moc"
