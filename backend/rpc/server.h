#pragma once
// tesserad's gRPC face: the tessera.v1.Scheduler service over a DaemonSession (the Backend in
// tesserad), with bearer-token
// authentication and roles, per-identity rate limits, request size limits, deadlines passed on
// to the backend, the standard health service and server reflection (grpcurl works out of the
// box). Handlers are callback reactors that never block a gRPC thread: each request becomes a
// backend work item whose reply finishes the call after the group commit.
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/grpcpp.h>

#include "rpc/auth.h"
#include "rpc/call_timer.h"
#include "service/daemon_session.h"

namespace tessera::rpc {

struct ServerOptions {
  std::string listen = "127.0.0.1:50551";  // host:port or unix:/path
  std::string tlsCert, tlsKey;             // PEM files: both for TLS, neither for plaintext
  // Listening beyond loopback without TLS and tokens is refused unless this is set.
  bool allowInsecureRemote = false;
  std::optional<TokenBook> tokens;  // nullopt: no authentication (loopback only), all callers admin
  double ratePerSecond = 500;       // requests per identity
  double rateBurst = 1000;
  int maxMessageBytes = 16 << 20;
  size_t maxBatchJobs = 100000;
  // Told of every finished unary call (method, seconds from arrival to status); empty: not timed.
  CallObserver onCallFinished;
};

// Whether an address is reachable only from this host (loopback or a unix socket).
bool isLocalAddress(const std::string& address);

class ApiServer {
 public:
  static Expected<std::unique_ptr<ApiServer>> start(DaemonSession& backend, ServerOptions options);
  ~ApiServer();
  [[nodiscard]] int port() const { return port_; }
  // Stops accepting calls, ends open watches, waits up to `grace` for calls in flight.
  void shutdown(std::chrono::milliseconds grace = std::chrono::milliseconds(5000));

 private:
  ApiServer() = default;
  class Service;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  bool down_ = false;
  std::function<void()> stopHealthWatch_;  // the backend's health watch, ended at shutdown
};

}  // namespace tessera::rpc
