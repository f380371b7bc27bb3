#include "rpc/client.h"

#include <mutex>
#include <thread>

#include "health.grpc.pb.h"
#include "report/report_json.h"
#include "rpc/inventory_convert.h"
#include "topology/yaml_reader.h"

namespace tessera::rpc {

ApiError apiErrorOf(const grpc::Status& s) {
  ErrorKind kind = ErrorKind::Internal;
  switch (s.error_code()) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
      kind = ErrorKind::InvalidArgument;
      break;
    case grpc::StatusCode::NOT_FOUND:
      kind = ErrorKind::NotFound;
      break;
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::UNIMPLEMENTED:
      kind = ErrorKind::FailedPrecondition;
      break;
    case grpc::StatusCode::UNAVAILABLE:
      kind = ErrorKind::Unavailable;
      break;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      kind = ErrorKind::DeadlineExceeded;
      break;
    case grpc::StatusCode::PERMISSION_DENIED:
      kind = ErrorKind::PermissionDenied;
      break;
    case grpc::StatusCode::UNAUTHENTICATED:
      kind = ErrorKind::Unauthenticated;
      break;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      kind = ErrorKind::ResourceExhausted;
      break;
    default:
      break;
  }
  ApiError e{kind, s.error_message(), {}};
  v1::ErrorStatus details;
  if (!s.error_details().empty() && details.ParseFromString(s.error_details()))
    for (const auto& d : details.details()) {
      v1::Text t;
      if (d.UnpackTo(&t)) e.text = textFromProto(t);
    }
  return e;
}

namespace {

// One unary call: prepare the context, call, convert the reply or the status.
template <typename Out, typename Response, typename Call, typename Convert>
void unary(const RemoteSession& s, Call&& call, Convert&& convert, const Reply<Out>& reply) {
  grpc::ClientContext ctx;
  s.prepare(ctx);
  Response response;
  const grpc::Status st = call(ctx, response);
  if (!st.ok()) {
    reply(apiErrorOf(st));
    return;
  }
  reply(convert(response));
}

}  // namespace

RemoteSession::RemoteSession(ClientOptions options, std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      channel_(std::move(channel)),
      stub_(v1::Scheduler::NewStub(channel_)) {}

Expected<std::unique_ptr<RemoteSession>> RemoteSession::connect(const ClientOptions& options) {
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (options.caFile.empty()) {
    creds = grpc::InsecureChannelCredentials();
  } else {
    TESSERA_TRY(roots, readTextFile(options.caFile));
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = roots;
    creds = grpc::SslCredentials(ssl);
  }
  grpc::ChannelArguments args;
  if (!options.serverName.empty()) args.SetSslTargetNameOverride(options.serverName);
  args.SetMaxReceiveMessageSize(64 << 20);
  if (options.maxReconnectBackoffSeconds > 0) {
    const int ms = static_cast<int>(options.maxReconnectBackoffSeconds * 1000);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, ms);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, ms);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, ms);
  }
  auto channel = grpc::CreateCustomChannel(options.address, creds, args);
  return std::unique_ptr<RemoteSession>(new RemoteSession(options, std::move(channel)));
}

void RemoteSession::prepare(grpc::ClientContext& ctx, bool withDeadline) const {
  if (!options_.token.empty()) ctx.AddMetadata("authorization", "Bearer " + options_.token);
  if (withDeadline)
    ctx.set_deadline(
        std::chrono::system_clock::now() +
        std::chrono::milliseconds(static_cast<int64_t>(options_.timeoutSeconds * 1000)));
}

void RemoteSession::submit(std::vector<Job> jobs, const Caller&, Deadline,
                           Reply<std::vector<JobId>> reply) {
  v1::SubmitBatchRequest request;
  for (const Job& j : jobs) *request.add_jobs() = jobSpecToProto(j);
  unary<std::vector<JobId>, v1::SubmitBatchResponse>(
      *this, [&](auto& ctx, auto& r) { return stub_->SubmitBatch(&ctx, request, &r); },
      [](const v1::SubmitBatchResponse& r) {
        return std::vector<JobId>(r.ids().begin(), r.ids().end());
      },
      reply);
}

void RemoteSession::job(JobId id, Reply<JobInfo> reply) {
  v1::GetJobRequest request;
  request.set_id(id);
  unary<JobInfo, v1::Job>(
      *this, [&](auto& ctx, auto& r) { return stub_->GetJob(&ctx, request, &r); },
      [](const v1::Job& j) { return jobFromProto(j); }, reply);
}

std::variant<v1::Job, ApiError> RemoteSession::rawJob(JobId id) {
  v1::GetJobRequest request;
  request.set_id(id);
  grpc::ClientContext ctx;
  prepare(ctx);
  v1::Job out;
  const grpc::Status st = stub_->GetJob(&ctx, request, &out);
  if (!st.ok()) return apiErrorOf(st);
  return out;
}

void RemoteSession::jobs(JobFilter filter, Reply<JobPage> reply) {
  v1::ListJobsRequest request;
  request.set_team(filter.team);
  request.set_priority_class(filter.priorityClass);
  if (filter.state) request.set_state(stateToProto(*filter.state));
  request.set_active_only(filter.activeOnly);
  request.set_page_size(static_cast<uint32_t>(filter.limit));
  if (filter.afterId) request.set_page_token(std::to_string(filter.afterId));
  unary<JobPage, v1::ListJobsResponse>(
      *this, [&](auto& ctx, auto& r) { return stub_->ListJobs(&ctx, request, &r); },
      [](const v1::ListJobsResponse& r) {
        JobPage page;
        for (const auto& j : r.jobs()) page.jobs.push_back(jobFromProto(j));
        if (!r.next_page_token().empty()) page.nextAfter = std::stoull(r.next_page_token());
        return page;
      },
      reply);
}

void RemoteSession::act(Command command, bool dryRun, const Caller&, Deadline,
                        Reply<CommandResult> reply) {
  const v1::ActRequest request = commandToProto(command, dryRun);
  unary<CommandResult, v1::ActResponse>(
      *this, [&](auto& ctx, auto& r) { return stub_->Act(&ctx, request, &r); },
      [](const v1::ActResponse& r) { return resultFromProto(r); }, reply);
}

namespace {
void explainRemote(RemoteSession& s, v1::Scheduler::Stub& stub, JobId id, bool brief,
                   Reply<Explanation>& reply) {
  v1::ExplainRequest request;
  request.set_job(id);
  request.set_brief(brief);
  unary<Explanation, v1::Explanation>(
      s, [&](auto& ctx, auto& r) { return stub.Explain(&ctx, request, &r); },
      [](const v1::Explanation& x) { return explanationFromProto(x); }, reply);
}
}  // namespace

void RemoteSession::explainJob(JobId id, Reply<Explanation> reply) {
  explainRemote(*this, *stub_, id, false, reply);
}

void RemoteSession::explainBrief(JobId id, Reply<Explanation> reply) {
  explainRemote(*this, *stub_, id, true, reply);
}

void RemoteSession::snapshot(Reply<ClusterSnapshot> reply) {
  v1::GetSnapshotRequest request;
  unary<ClusterSnapshot, v1::ClusterSnapshot>(
      *this, [&](auto& ctx, auto& r) { return stub_->GetSnapshot(&ctx, request, &r); },
      [](const v1::ClusterSnapshot& s) { return snapshotFromProto(s); }, reply);
}

void RemoteSession::nodeInventory(Reply<std::vector<NodeInventoryView>> reply) {
  using Answer = std::variant<std::vector<NodeInventoryView>, ApiError>;
  unary<std::vector<NodeInventoryView>, v1::ListNodeInventoryResponse>(
      *this,
      [&](auto& ctx, auto& r) {
        return stub_->ListNodeInventory(&ctx, v1::ListNodeInventoryRequest{}, &r);
      },
      [](const v1::ListNodeInventoryResponse& r) -> Answer {
        auto nodes = nodeInventoryFromProto(r);
        if (!nodes) return ApiError{ErrorKind::Internal, nodes.error().str()};
        return std::move(*nodes);
      },
      reply);
}

void RemoteSession::metrics(MetricQuery query, Reply<MetricAnswer> reply) {
  v1::QueryMetricsRequest request;
  request.set_series(query.series);
  request.set_from(query.from);
  request.set_to(query.to);
  request.set_resolution(metricResolutionName(query.resolution));
  request.set_max_points(static_cast<uint32_t>(query.maxPoints));
  unary<MetricAnswer, v1::QueryMetricsResponse>(
      *this, [&](auto& ctx, auto& r) { return stub_->QueryMetrics(&ctx, request, &r); },
      [](const v1::QueryMetricsResponse& r) { return metricsFromProto(r); }, reply);
}

void RemoteSession::report(ReportRequest request, Reply<Report> reply) {
  const v1::GetReportRequest message = reportRequestToProto(request);
  grpc::ClientContext ctx;
  prepare(ctx);
  v1::GetReportResponse response;
  const grpc::Status st = stub_->GetReport(&ctx, message, &response);
  if (!st.ok()) {
    reply(apiErrorOf(st));
    return;
  }
  auto parsed = reportFromJson(response.content(), options_.address);
  if (!parsed) {
    reply(
        ApiError{ErrorKind::Internal, "the server's report is not valid: " + parsed.error().str()});
    return;
  }
  reply(std::move(*parsed));
}

ClusterSession::CancelWatch RemoteSession::watchChanges(std::function<void()> onChange) {
  struct State {
    std::mutex mutex;
    grpc::ClientContext* ctx = nullptr;
    bool stop = false;
  };
  auto state = std::make_shared<State>();
  auto stub = stub_.get();
  const std::string token = options_.token;
  std::thread worker([state, stub, token, onChange = std::move(onChange)] {
    bool onlyNew = true;
    uint64_t last = 0;
    while (true) {
      grpc::ClientContext ctx;
      if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
      {
        std::lock_guard lock(state->mutex);
        if (state->stop) return;
        state->ctx = &ctx;
      }
      v1::WatchEventsRequest request;
      request.set_only_new(onlyNew);
      request.set_after_seq(last);
      auto reader = stub->WatchEvents(&ctx, request);
      v1::WatchEventsResponse batch;
      while (reader->Read(&batch)) {
        if (batch.events_size() > 0) last = batch.events(batch.events_size() - 1).seq();
        onlyNew = false;
        onChange();
      }
      reader->Finish();
      {
        std::lock_guard lock(state->mutex);
        state->ctx = nullptr;
        if (state->stop) return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the server went away
    }
  });
  auto thread = std::make_shared<std::thread>(std::move(worker));
  return [state, thread] {
    {
      std::lock_guard lock(state->mutex);
      state->stop = true;
      if (state->ctx) state->ctx->TryCancel();
    }
    if (thread->joinable()) thread->join();
  };
}

std::variant<ServerIdentity, ApiError> RemoteSession::whoAmI() {
  grpc::ClientContext ctx;
  prepare(ctx);
  v1::WhoAmIResponse r;
  const grpc::Status st = stub_->WhoAmI(&ctx, v1::WhoAmIRequest{}, &r);
  if (!st.ok()) return apiErrorOf(st);
  return ServerIdentity{r.name(), r.role(), r.server_version(), r.mode()};
}

std::variant<uint64_t, ApiError> RemoteSession::backup(const std::string& path) {
  grpc::ClientContext ctx;
  prepare(ctx);
  v1::BackupRequest request;
  request.set_path(path);
  v1::BackupResponse r;
  const grpc::Status st = stub_->Backup(&ctx, request, &r);
  if (!st.ok()) return apiErrorOf(st);
  return r.bytes();
}

std::variant<ServerHealth, ApiError> RemoteSession::health() {
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext ctx;
  prepare(ctx);
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse r;
  const grpc::Status st = health->Check(&ctx, request, &r);
  if (!st.ok()) return apiErrorOf(st);
  ServerHealth answer{
      grpc::health::v1::HealthCheckResponse::ServingStatus_Name(r.status()), {}, std::nullopt};
  // The details: why not serving, and the executor's state (serving with Slurm unreachable).
  grpc::ClientContext why;
  prepare(why);
  v1::GetHealthResponse details;
  if (stub_->GetHealth(&why, v1::GetHealthRequest(), &details).ok()) {
    if (r.status() != grpc::health::v1::HealthCheckResponse::SERVING)
      answer.reason = details.reason();
    if (details.has_executor())
      answer.executor =
          ClusterSnapshot::Executor{details.executor().name(), details.executor().state(),
                                    details.executor().detail(), details.executor().last_sync()};
  }
  return answer;
}

std::optional<ApiError> RemoteSession::watch(uint64_t afterSeq,
                                             const std::function<bool(const Event&)>& onEvent,
                                             int retries) {
  uint64_t last = afterSeq;
  int failures = 0;
  while (true) {
    grpc::ClientContext ctx;
    prepare(ctx, false);
    v1::WatchEventsRequest request;
    request.set_after_seq(last);
    auto reader = stub_->WatchEvents(&ctx, request);
    v1::WatchEventsResponse batch;
    while (reader->Read(&batch)) {
      failures = 0;
      for (const auto& e : batch.events()) {
        // The server sends each event once, in order; a reconnect resumes after `last`.
        if (e.seq() <= last) continue;
        last = e.seq();
        if (!onEvent(eventFromProto(e))) {
          ctx.TryCancel();
          reader->Finish();
          return std::nullopt;
        }
      }
    }
    const grpc::Status st = reader->Finish();
    // A server shutting down ends streams with UNAVAILABLE or CANCELLED (this client cancels only
    // when asked to stop, and has returned then): both mean "reconnect and resume".
    const auto code = st.error_code();
    const bool transient = code == grpc::StatusCode::UNAVAILABLE ||
                           code == grpc::StatusCode::CANCELLED || code == grpc::StatusCode::OK;
    if (!transient || ++failures > retries) return apiErrorOf(st);
    std::this_thread::sleep_for(std::chrono::milliseconds(200 * failures));
  }
}

}  // namespace tessera::rpc
