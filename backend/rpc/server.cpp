#include "rpc/server.h"

// The generated CallbackService hides its sync overloads by design, and GCC 12 misreads the
// std::variant moves in the reply lambdas; both warnings are false alarms here.
#pragma GCC diagnostic ignored "-Woverloaded-virtual"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>

#include <mutex>
#include <set>

#include "rpc/convert.h"
#include "rpc/inventory_convert.h"
#include "sim/dcgm_metrics.h"
#include "topology/yaml_reader.h"

#ifndef TESSERA_VERSION
#define TESSERA_VERSION "dev"
#endif

namespace tessera::rpc {
namespace {

// The longest a report may compute, whatever deadline the client gave (or none).
constexpr std::chrono::minutes kReportTimeLimit{5};

grpc::StatusCode codeOf(ErrorKind k) {
  switch (k) {
    case ErrorKind::InvalidArgument:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case ErrorKind::NotFound:
      return grpc::StatusCode::NOT_FOUND;
    case ErrorKind::FailedPrecondition:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case ErrorKind::Unavailable:
      return grpc::StatusCode::UNAVAILABLE;
    case ErrorKind::DeadlineExceeded:
      return grpc::StatusCode::DEADLINE_EXCEEDED;
    case ErrorKind::PermissionDenied:
      return grpc::StatusCode::PERMISSION_DENIED;
    case ErrorKind::Unauthenticated:
      return grpc::StatusCode::UNAUTHENTICATED;
    case ErrorKind::ResourceExhausted:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case ErrorKind::Internal:
      break;
  }
  return grpc::StatusCode::INTERNAL;
}

grpc::Status statusOf(const ApiError& e) {
  if (e.text.empty()) return {codeOf(e.kind), e.message};
  v1::ErrorStatus details;
  details.set_code(static_cast<int>(codeOf(e.kind)));
  details.set_message(e.message);
  details.add_details()->PackFrom(textToProto(e.text));
  return {codeOf(e.kind), e.message, details.SerializeAsString()};
}

grpc::Status invalid(const Error& e) {
  return {grpc::StatusCode::INVALID_ARGUMENT, e.str()};
}

Deadline deadlineOf(const grpc::CallbackServerContext* ctx) {
  const auto d = ctx->deadline();
  if (d >= std::chrono::system_clock::time_point::max() - std::chrono::hours(24 * 365))
    return std::nullopt;
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             d - std::chrono::system_clock::now());
}

Expected<std::string> readFile(const std::string& path, const char* what) {
  auto text = readTextFile(path);
  if (!text) return Error{std::string("TLS ") + what + ": " + text.error().message, {}};
  return text;
}

// Finishes a unary call with the backend's reply: `fill` writes the response message.
template <typename T, typename Fill>
Reply<T> finishWith(grpc::ServerUnaryReactor* reactor, Fill fill) {
  return [reactor, fill = std::move(fill)](std::variant<T, ApiError> r) mutable {
    if (auto* e = std::get_if<ApiError>(&r)) {
      reactor->Finish(statusOf(*e));
      return;
    }
    fill(std::get<T>(r));
    reactor->Finish(grpc::Status::OK);
  };
}

}  // namespace

bool isLocalAddress(const std::string& address) {
  if (address.starts_with("unix:")) return true;
  for (const char* local : {"127.", "localhost:", "[::1]:"})
    if (address.starts_with(local)) return true;
  return false;
}

// One event as an entry of WatchEventsResponse.events (field 1, length-delimited): any run of
// these, concatenated, is a valid WatchEventsResponse. Made once per event by the hub.
std::string encodeEventEntry(const Event& e) {
  const std::string body = eventToProto(e).SerializeAsString();
  std::string out;
  out.reserve(body.size() + 6);
  out.push_back('\x0a');
  for (size_t n = body.size();; n >>= 7) {
    const auto low = static_cast<char>(n & 0x7f);
    if (n < 0x80) {
      out.push_back(low);
      break;
    }
    out.push_back(static_cast<char>(low | 0x80));
  }
  return out + body;
}

// Streams committed events to one watcher from its own cursor; a slow watcher only delays
// itself (its next batch is read when its previous write completed). Writes the hub's
// ready-made encodings, so a hundred watchers cost one serialization per event, not a hundred.
class WatchReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  WatchReactor(EventHub& hub, uint64_t after, std::function<void(WatchReactor*, bool)> track)
      : hub_(hub), cursor_(after), track_(std::move(track)) {
    track_(this, true);
    subscription_ = hub_.subscribe([this] { pump(); });
    pump();
  }
  void end() {
    std::lock_guard lock(mutex_);
    finishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "tesserad is shutting down"));
  }
  void OnWriteDone(bool ok) override {
    {
      std::lock_guard lock(mutex_);
      writing_ = false;
      if (!ok) finishLocked(grpc::Status::CANCELLED);
    }
    pump();
  }
  void OnCancel() override {
    std::lock_guard lock(mutex_);
    finishLocked(grpc::Status::CANCELLED);
  }
  void OnDone() override {
    hub_.unsubscribe(subscription_);  // waits out a wake in progress
    track_(this, false);
    delete this;
  }

 private:
  void pump() {
    std::lock_guard lock(mutex_);
    if (writing_ || finished_) return;
    auto batch = hub_.readEncoded(cursor_, 512);
    if (!batch) {
      finishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, batch.error().str()));
      return;
    }
    if (batch->count == 0) return;
    grpc::Slice slice(batch->bytes);
    message_ = grpc::ByteBuffer(&slice, 1);
    cursor_ = batch->lastSeq;
    writing_ = true;
    StartWrite(&message_);
  }
  void finishLocked(const grpc::Status& st) {
    if (finished_) return;
    finished_ = true;
    Finish(st);
  }

  EventHub& hub_;
  uint64_t cursor_;
  std::function<void(WatchReactor*, bool)> track_;
  uint64_t subscription_ = 0;
  std::mutex mutex_;
  bool writing_ = false;
  bool finished_ = false;
  grpc::ByteBuffer message_;
};

class ApiServer::Service final
    : public v1::Scheduler::WithRawCallbackMethod_WatchEvents<v1::Scheduler::CallbackService> {
 public:
  Service(DaemonSession& backend, ServerOptions options)
      : backend_(backend),
        options_(std::move(options)),
        limiter_(options_.ratePerSecond, options_.rateBurst) {}

  void endWatches() {
    std::lock_guard lock(watchMutex_);
    closing_ = true;
    for (WatchReactor* w : watches_) w->end();
  }

  grpc::ServerUnaryReactor* Submit(grpc::CallbackServerContext* ctx, const v1::SubmitRequest* req,
                                   v1::SubmitResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Operator);
    if (!who) return finish(reactor, who.error());
    auto job = jobFromProto(req->job(), "job", backend_.priorityClasses());
    if (!job) return finish(reactor, invalid(job.error()));
    backend_.submit({*job}, Caller{who->name}, deadlineOf(ctx),
                    finishWith<std::vector<JobId>>(reactor, [resp](const std::vector<JobId>& ids) {
                      resp->set_id(ids.front());
                    }));
    return reactor;
  }

  grpc::ServerUnaryReactor* SubmitBatch(grpc::CallbackServerContext* ctx,
                                        const v1::SubmitBatchRequest* req,
                                        v1::SubmitBatchResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Operator);
    if (!who) return finish(reactor, who.error());
    if (static_cast<size_t>(req->jobs_size()) > options_.maxBatchJobs)
      return finish(reactor,
                    {grpc::StatusCode::RESOURCE_EXHAUSTED,
                     "jobs: at most " + std::to_string(options_.maxBatchJobs) + " jobs per batch"});
    std::vector<Job> jobs;
    jobs.reserve(static_cast<size_t>(req->jobs_size()));
    for (int i = 0; i < req->jobs_size(); ++i) {
      auto job =
          jobFromProto(req->jobs(i), "jobs[" + std::to_string(i) + "]", backend_.priorityClasses());
      if (!job) return finish(reactor, invalid(job.error()));
      jobs.push_back(std::move(*job));
    }
    backend_.submit(std::move(jobs), Caller{who->name}, deadlineOf(ctx),
                    finishWith<std::vector<JobId>>(reactor, [resp](const std::vector<JobId>& ids) {
                      for (JobId id : ids) resp->add_ids(id);
                    }));
    return reactor;
  }

  grpc::ServerUnaryReactor* GetJob(grpc::CallbackServerContext* ctx, const v1::GetJobRequest* req,
                                   v1::Job* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Viewer);
    if (!who) return finish(reactor, who.error());
    if (req->id() == 0)
      return finish(reactor, {grpc::StatusCode::INVALID_ARGUMENT, "id: required"});
    backend_.job(req->id(), finishWith<JobInfo>(reactor, [resp](const JobInfo& info) {
                   *resp = jobToProto(info);
                 }));
    return reactor;
  }

  grpc::ServerUnaryReactor* ListJobs(grpc::CallbackServerContext* ctx,
                                     const v1::ListJobsRequest* req,
                                     v1::ListJobsResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Viewer);
    if (!who) return finish(reactor, who.error());
    JobFilter filter;
    filter.team = req->team();
    filter.priorityClass = req->priority_class();
    if (!v1::JobState_IsValid(req->state()))
      return finish(reactor, {grpc::StatusCode::INVALID_ARGUMENT,
                              "state: unknown value " + std::to_string(req->state())});
    filter.state = stateFromProto(req->state());
    filter.activeOnly = req->active_only();
    filter.limit = req->page_size() == 0 ? 100 : std::min<size_t>(req->page_size(), 1000);
    if (!req->page_token().empty()) {
      try {
        size_t used = 0;
        filter.afterId = std::stoull(req->page_token(), &used);
        if (used != req->page_token().size()) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        return finish(reactor, {grpc::StatusCode::INVALID_ARGUMENT,
                                "page_token: not a token this server gave"});
      }
    }
    backend_.jobs(filter, finishWith<JobPage>(reactor, [resp](const JobPage& page) {
                    for (const JobInfo& j : page.jobs) *resp->add_jobs() = jobToProto(j);
                    if (page.nextAfter) resp->set_next_page_token(std::to_string(page.nextAfter));
                  }));
    return reactor;
  }

  grpc::ServerUnaryReactor* CancelJob(grpc::CallbackServerContext* ctx,
                                      const v1::CancelJobRequest* req,
                                      v1::ActResponse* resp) override {
    v1::ActRequest act;
    act.set_dry_run(req->dry_run());
    act.mutable_cancel()->set_job(req->id());
    return runAct(ctx, act, resp);
  }

  grpc::ServerUnaryReactor* Act(grpc::CallbackServerContext* ctx, const v1::ActRequest* req,
                                v1::ActResponse* resp) override {
    return runAct(ctx, *req, resp);
  }

  grpc::ServerUnaryReactor* Explain(grpc::CallbackServerContext* ctx, const v1::ExplainRequest* req,
                                    v1::Explanation* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Viewer);
    if (!who) return finish(reactor, who.error());
    if (req->job() == 0)
      return finish(reactor, {grpc::StatusCode::INVALID_ARGUMENT, "job: required"});
    auto done = finishWith<Explanation>(
        reactor, [resp](const Explanation& x) { *resp = explanationToProto(x); });
    if (req->brief())
      backend_.explainBrief(req->job(), std::move(done));
    else
      backend_.explainJob(req->job(), std::move(done));
    return reactor;
  }

  grpc::ServerUnaryReactor* GetSnapshot(grpc::CallbackServerContext* ctx,
                                        const v1::GetSnapshotRequest*,
                                        v1::ClusterSnapshot* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Viewer);
    if (!who) return finish(reactor, who.error());
    backend_.snapshot(finishWith<ClusterSnapshot>(
        reactor, [resp](const ClusterSnapshot& s) { *resp = snapshotToProto(s); }));
    return reactor;
  }

  grpc::ServerWriteReactor<grpc::ByteBuffer>* WatchEvents(grpc::CallbackServerContext* ctx,
                                                          const grpc::ByteBuffer* raw) override {
    auto who = gate(ctx, Role::Viewer);
    if (!who) return refusedStream(who.error());
    v1::WatchEventsRequest req;
    if (!grpc::GenericDeserialize<grpc::ProtoBufferReader, v1::WatchEventsRequest>(
             const_cast<grpc::ByteBuffer*>(raw), &req)
             .ok())
      return refusedStream({grpc::StatusCode::INVALID_ARGUMENT, "not a WatchEventsRequest"});
    {
      std::lock_guard lock(watchMutex_);
      if (closing_)
        return refusedStream({grpc::StatusCode::UNAVAILABLE, "tesserad is shutting down"});
    }
    const uint64_t after = req.only_new() ? backend_.events().lastSeq() : req.after_seq();
    return new WatchReactor(backend_.events(), after, [this](WatchReactor* w, bool add) {
      std::lock_guard lock(watchMutex_);
      if (add)
        watches_.insert(w);
      else
        watches_.erase(w);
    });
  }

  grpc::ServerUnaryReactor* QueryMetrics(grpc::CallbackServerContext* ctx,
                                         const v1::QueryMetricsRequest* req,
                                         v1::QueryMetricsResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Viewer);
    if (!who) return finish(reactor, who.error());
    MetricQuery q;
    q.series = req->series();
    q.from = req->from();
    q.to = req->to();
    const auto res = parseMetricResolution(req->resolution().empty() ? "auto" : req->resolution());
    if (!res)
      return finish(reactor, {grpc::StatusCode::INVALID_ARGUMENT,
                              "resolution: '" + req->resolution() + "' (use auto, raw, 1m or 1h)"});
    q.resolution = *res;
    q.maxPoints = req->max_points() == 0 ? 2000 : std::min<size_t>(req->max_points(), 100000);
    backend_.metrics(q, finishWith<MetricAnswer>(
                            reactor, [resp](const MetricAnswer& a) { *resp = metricsToProto(a); }));
    return reactor;
  }

  grpc::ServerUnaryReactor* GetReport(grpc::CallbackServerContext* ctx,
                                      const v1::GetReportRequest* req,
                                      v1::GetReportResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Viewer);
    if (!who) return finish(reactor, who.error());
    auto request = reportRequestFromProto(*req);
    if (!request) return finish(reactor, invalid(request.error()));
    auto format = reportFormatFromProto(*req, request->prices.has_value());
    if (!format) return finish(reactor, invalid(format.error()));
    // A report reads the whole range from disk: bound it even when the client set no deadline,
    // and let a cancelled call (client gone, server shutting down) stop the worker.
    ReportLimits limits;
    limits.deadline = std::chrono::steady_clock::now() + kReportTimeLimit;
    if (const Deadline d = deadlineOf(ctx); d && *d < *limits.deadline) limits.deadline = d;
    limits.cancelled = [ctx] { return ctx->IsCancelled(); };
    backend_.report(std::move(*request), std::move(limits),
                    finishWith<Report>(reactor, [resp, format = *format](const Report& r) {
                      *resp = reportToProto(r, format);
                    }));
    return reactor;
  }

  grpc::ServerUnaryReactor* PushTelemetry(grpc::CallbackServerContext* ctx,
                                          const v1::PushTelemetryRequest* req,
                                          v1::PushTelemetryResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Agent);
    if (!who) return finish(reactor, who.error());
    // Parsed here, on the server's thread: the engine thread only maps the readings.
    auto scrape =
        parseDcgmMetrics(req->exposition(), req->source().empty() ? "exposition" : req->source());
    if (!scrape) return finish(reactor, invalid(scrape.error()));
    backend_.pushTelemetry(std::move(*scrape), req->node(),
                           finishWith<TelemetryPush>(reactor, [resp](const TelemetryPush& p) {
                             resp->set_gpus(static_cast<uint32_t>(p.gpus));
                             for (const auto& w : p.warnings) resp->add_warnings(w);
                             for (const auto& m : p.migApply) {
                               auto* out = resp->add_mig_apply();
                               out->set_gpu(static_cast<uint32_t>(m.gpu));
                               out->set_model(m.model);
                               out->set_layout(m.layout);
                               out->set_drained(m.drained);
                               out->set_waiting(m.waiting);
                             }
                           }));
    return reactor;
  }

  // --- node inventories: small handlers of their own, the checks are the keeper's
  grpc::ServerUnaryReactor* ReportInventory(grpc::CallbackServerContext* ctx,
                                            const v1::ReportInventoryRequest* req,
                                            v1::ReportInventoryResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Agent);
    if (!who) return finish(reactor, who.error());
    auto report = inventoryReportFromProto(*req);
    if (!report) return finish(reactor, invalid(report.error()));
    backend_.reportInventory(std::move(*report),
                             finishWith<InventoryReply>(reactor, [resp](const InventoryReply& r) {
                               inventoryReplyToProto(r, *resp);
                             }));
    return reactor;
  }

  grpc::ServerUnaryReactor* ListNodeInventory(grpc::CallbackServerContext* ctx,
                                              const v1::ListNodeInventoryRequest*,
                                              v1::ListNodeInventoryResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Viewer);
    if (!who) return finish(reactor, who.error());
    backend_.nodeInventory(finishWith<std::vector<NodeInventoryView>>(
        reactor,
        [resp](const std::vector<NodeInventoryView>& n) { nodeInventoryToProto(n, *resp); }));
    return reactor;
  }

  grpc::ServerUnaryReactor* AdmitNode(grpc::CallbackServerContext* ctx,
                                      const v1::AdmitNodeRequest* req,
                                      v1::AdmitNodeResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Admin);
    if (!who) return finish(reactor, who.error());
    backend_.admitNode(
        req->node(), who->name,
        finishWith<std::string>(reactor, [resp](const std::string& m) { resp->set_message(m); }));
    return reactor;
  }

  grpc::ServerUnaryReactor* Backup(grpc::CallbackServerContext* ctx, const v1::BackupRequest* req,
                                   v1::BackupResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Admin);
    if (!who) return finish(reactor, who.error());
    backend_.backup(req->path(),
                    finishWith<uint64_t>(reactor, [resp, path = req->path()](uint64_t n) {
                      resp->set_path(path);
                      resp->set_bytes(n);
                    }));
    return reactor;
  }

  grpc::ServerUnaryReactor* WhoAmI(grpc::CallbackServerContext* ctx, const v1::WhoAmIRequest*,
                                   v1::WhoAmIResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Viewer);
    if (!who) return finish(reactor, who.error());
    resp->set_name(who->name);
    resp->set_role(roleName(who->role));
    resp->set_server_version(TESSERA_VERSION);
    resp->set_mode(backendModeName(backend_.mode()));
    return finish(reactor, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* GetHealth(grpc::CallbackServerContext* ctx, const v1::GetHealthRequest*,
                                      v1::GetHealthResponse* resp) override {
    auto* reactor = ctx->DefaultReactor();
    auto who = gate(ctx, Role::Viewer);
    if (!who) return finish(reactor, who.error());
    const BackendHealth health = backend_.health();
    resp->set_serving(health.serving);
    resp->set_reason(health.reason);
    const ExecutorStatus ex = backend_.executorStatus();
    auto* out = resp->mutable_executor();
    out->set_name(ex.name);
    out->set_state(executorStateName(ex.state));
    out->set_detail(ex.detail);
    out->set_last_sync(ex.lastSync);
    return finish(reactor, grpc::Status::OK);
  }

 private:
  struct Refused {
    grpc::Status status;
  };

  // Authentication, role and rate limit, in that order.
  Expected<Identity> gateImpl(grpc::CallbackServerContext* ctx, Role needed, grpc::Status& why) {
    Identity id{"local", Role::Admin};
    if (options_.tokens) {
      const auto& md = ctx->client_metadata();
      const auto it = md.find("authorization");
      std::optional<std::string_view> token;
      if (it != md.end())
        token = bearerToken(std::string_view(it->second.data(), it->second.size()));
      auto found = token ? options_.tokens->authenticate(*token) : std::nullopt;
      if (!found) {
        why = {grpc::StatusCode::UNAUTHENTICATED,
               it == md.end() ? "no bearer token (authorization: Bearer TOKEN)"
                              : "the bearer token is not valid"};
        return Error{"", {}};
      }
      id = *found;
    }
    if (!permits(id.role, needed)) {
      why = {grpc::StatusCode::PERMISSION_DENIED,
             id.name + " has role " + roleName(id.role) + "; this call needs " + roleName(needed)};
      return Error{"", {}};
    }
    // Without tokens every caller is "local": limit each connection instead, so one busy
    // script does not starve the console.
    const std::string who = options_.tokens ? id.name : ctx->peer();
    if (!limiter_.allow(who)) {
      why = {grpc::StatusCode::RESOURCE_EXHAUSTED,
             "rate limit: more than " + std::to_string(static_cast<int>(options_.ratePerSecond)) +
                 " requests per second from " + who};
      return Error{"", {}};
    }
    return id;
  }

  // The caller, or the status that refuses it.
  struct Gate {
    std::optional<Identity> identity;
    grpc::Status status;
    explicit operator bool() const { return identity.has_value(); }
    const Identity* operator->() const { return &*identity; }
    [[nodiscard]] const grpc::Status& error() const { return status; }
  };
  Gate gate(grpc::CallbackServerContext* ctx, Role needed) {
    Gate g;
    auto id = gateImpl(ctx, needed, g.status);
    if (id) g.identity = *id;
    return g;
  }

  static grpc::ServerUnaryReactor* finish(grpc::ServerUnaryReactor* reactor,
                                          const grpc::Status& st) {
    reactor->Finish(st);
    return reactor;
  }

  static grpc::ServerWriteReactor<grpc::ByteBuffer>* refusedStream(const grpc::Status& st) {
    class Refusal final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
     public:
      explicit Refusal(const grpc::Status& s) { Finish(s); }
      void OnDone() override { delete this; }
    };
    return new Refusal(st);
  }

  grpc::ServerUnaryReactor* runAct(grpc::CallbackServerContext* ctx, const v1::ActRequest& req,
                                   v1::ActResponse* resp) {
    auto* reactor = ctx->DefaultReactor();
    auto command = commandFromProto(req);
    if (!command) {
      // Authentication still comes first: an anonymous caller learns nothing about fields.
      auto who = gate(ctx, Role::Viewer);
      if (!who) return finish(reactor, who.error());
      return finish(reactor, invalid(command.error()));
    }
    auto who = gate(ctx, requiredRole(*command));
    if (!who) return finish(reactor, who.error());
    backend_.act(std::move(*command), req.dry_run(), Caller{who->name}, deadlineOf(ctx),
                 finishWith<CommandResult>(reactor, [resp, this](const CommandResult& r) {
                   *resp = resultToProto(r);
                   resp->set_event_seq(backend_.events().lastSeq());
                 }));
    return reactor;
  }

  DaemonSession& backend_;
  ServerOptions options_;
  RateLimiter limiter_;
  std::mutex watchMutex_;
  std::set<WatchReactor*> watches_;
  bool closing_ = false;
};

Expected<std::unique_ptr<ApiServer>> ApiServer::start(DaemonSession& backend,
                                                      ServerOptions options) {
  const bool tls = !options.tlsCert.empty() || !options.tlsKey.empty();
  if (tls && (options.tlsCert.empty() || options.tlsKey.empty()))
    return Error{"TLS needs both a certificate and a key", {}};
  if (!isLocalAddress(options.listen) && !options.allowInsecureRemote) {
    if (!tls)
      return Error{"listening on " + options.listen +
                       " (beyond this host) needs TLS (--tls-cert, --tls-key); "
                       "--allow-insecure-remote overrides",
                   {}};
    if (!options.tokens)
      return Error{"listening on " + options.listen +
                       " (beyond this host) needs a token file (--tokens); "
                       "--allow-insecure-remote overrides",
                   {}};
  }
  std::shared_ptr<grpc::ServerCredentials> creds = grpc::InsecureServerCredentials();
  if (tls) {
    TESSERA_TRY(cert, readFile(options.tlsCert, "certificate"));
    TESSERA_TRY(key, readFile(options.tlsKey, "key"));
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back({key, cert});
    creds = grpc::SslServerCredentials(ssl);
  }
  backend.events().setEncoder(encodeEventEntry);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  std::unique_ptr<ApiServer> s(new ApiServer());
  const std::string listen = options.listen;
  const int maxMessage = options.maxMessageBytes;
  CallObserver onCallFinished = options.onCallFinished;
  s->service_ = std::make_unique<Service>(backend, std::move(options));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(listen, creds, &s->port_);
  builder.SetMaxReceiveMessageSize(maxMessage);
  builder.SetMaxSendMessageSize(64 << 20);
  builder.RegisterService(s->service_.get());
  if (onCallFinished) {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> timers;
    timers.push_back(callTimerFactory(std::move(onCallFinished)));
    builder.experimental().SetInterceptorCreators(std::move(timers));
  }
  s->server_ = builder.BuildAndStart();
  if (!s->server_ || (s->port_ == 0 && !listen.starts_with("unix:")))
    return Error{"cannot listen on " + listen + " (address in use or not valid)", {}};
  // The standard health service follows the backend: NOT_SERVING once it refuses all work.
  grpc::HealthCheckServiceInterface* health = s->server_->GetHealthCheckService();
  health->SetServingStatus(backend.health().serving);
  s->stopHealthWatch_ = backend.watchHealth(
      [health](const BackendHealth& h) { health->SetServingStatus(h.serving); });
  return s;
}

void ApiServer::shutdown(std::chrono::milliseconds grace) {
  if (down_ || !server_) return;
  down_ = true;
  if (stopHealthWatch_) stopHealthWatch_();
  server_->GetHealthCheckService()->SetServingStatus(false);
  service_->endWatches();
  server_->Shutdown(std::chrono::system_clock::now() + grace);
  server_->Wait();
}

ApiServer::~ApiServer() {
  shutdown();
}

}  // namespace tessera::rpc
