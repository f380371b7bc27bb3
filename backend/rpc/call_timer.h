#pragma once
// Times every unary gRPC call the server handles, from its arrival to the status sent, and hands
// (method, seconds) to an observer: tesserad turns it into the tessera_rpc_duration_seconds
// histogram. A server interceptor rather than code in each handler, so a handler added later is
// timed without anyone remembering to. Streaming calls (WatchEvents) are not timed: their
// duration is how long a client watched, not how fast the server answered.
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <grpcpp/support/server_interceptor.h>

namespace tessera::rpc {

// Called on a gRPC thread for each finished call; must be thread-safe and must not block.
using CallObserver = std::function<void(const std::string& method, double seconds)>;

// "/tessera.v1.Scheduler/Submit" -> "Submit" (the method names of tesserad's services are unique).
std::string shortMethodName(std::string_view fullName);

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> callTimerFactory(
    CallObserver observe);

}  // namespace tessera::rpc
