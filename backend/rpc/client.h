#pragma once
// The client side of tesserad's API: a ClusterSession over gRPC (what the console's remote mode
// uses, so its widgets cannot tell it from the embedded engine) plus the calls only a remote
// backend has (watch with resume, health, identity, backup). `tessera ctl` is built on it.
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "rpc/convert.h"
#include "service/node_inventory_source.h"

namespace tessera::rpc {

struct ClientOptions {
  std::string address = "127.0.0.1:50551";  // host:port, or unix:/path
  std::string token;                        // bearer token; empty = none
  std::string caFile;          // PEM roots to verify the server (TLS); empty = plaintext
  std::string serverName;      // TLS name override (a test certificate's CN)
  double timeoutSeconds = 30;  // per call (not for watch)
  // The longest wait between the channel's own reconnect attempts after the server went away;
  // 0 = gRPC's default (up to 120 s). A caller with its own backoff (tessera agent) sets it low
  // so that a restarted server is seen on its next try.
  double maxReconnectBackoffSeconds = 0;
};

struct ServerIdentity {
  std::string name, role, version, mode;
};

struct ServerHealth {
  std::string status;  // SERVING, NOT_SERVING, ... as the standard health service says
  std::string reason;  // why not serving, when the server says (GetHealth)
  std::optional<ClusterSnapshot::Executor> executor;  // an older server does not say
};

class RemoteSession final : public ClusterSession, public NodeInventorySource {
 public:
  // Fails only on unusable options (unreadable CA file); the server is contacted per call.
  static Expected<std::unique_ptr<RemoteSession>> connect(const ClientOptions& options);

  // ClusterSession: each call is one RPC made on the caller's thread; the reply runs before the
  // call returns. A transport or server error arrives as ApiError with its kind.
  void submit(std::vector<Job> jobs, const Caller& who, Deadline d,
              Reply<std::vector<JobId>> reply) override;
  void job(JobId id, Reply<JobInfo> reply) override;
  void jobs(JobFilter filter, Reply<JobPage> reply) override;
  void act(Command command, bool dryRun, const Caller& who, Deadline d,
           Reply<CommandResult> reply) override;
  void explainJob(JobId id, Reply<Explanation> reply) override;
  void explainBrief(JobId id, Reply<Explanation> reply) override;
  void snapshot(Reply<ClusterSnapshot> reply) override;
  void metrics(MetricQuery query, Reply<MetricAnswer> reply) override;
  // GetReport in its JSON form, read back with reportFromJson (a malformed answer is Internal).
  void report(ReportRequest request, Reply<Report> reply) override;
  // A WatchEvents stream from the current end on its own thread; reconnects like watch().
  CancelWatch watchChanges(std::function<void()> onChange) override;
  // ListNodeInventory (viewer).
  void nodeInventory(Reply<std::vector<NodeInventoryView>> reply) override;

  std::variant<ServerIdentity, ApiError> whoAmI();
  std::variant<uint64_t, ApiError> backup(const std::string& path);
  // The standard health status; when it is not SERVING, also the reason GetHealth gives (left
  // empty when the caller may not read it or the server is older).
  std::variant<ServerHealth, ApiError> health();
  // Events after `afterSeq` as they come; `onEvent` returns false to stop. When the stream
  // breaks (server restart), it reconnects with the last sequence number seen, so nothing is
  // missed or repeated; it gives up after `retries` failed reconnects in a row.
  std::optional<ApiError> watch(uint64_t afterSeq, const std::function<bool(const Event&)>& onEvent,
                                int retries = 10);
  // The raw message forms, for `-o json`.
  std::variant<v1::Job, ApiError> rawJob(JobId id);
  [[nodiscard]] v1::Scheduler::Stub& stub() { return *stub_; }
  void prepare(grpc::ClientContext& ctx, bool withDeadline = true) const;

 private:
  RemoteSession(ClientOptions options, std::shared_ptr<grpc::Channel> channel);
  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Scheduler::Stub> stub_;
};

ApiError apiErrorOf(const grpc::Status& status);

}  // namespace tessera::rpc
