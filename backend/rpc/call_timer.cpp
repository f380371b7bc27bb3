#include "rpc/call_timer.h"

#include <chrono>

namespace tessera::rpc {

namespace {

using grpc::experimental::InterceptionHookPoints;
using grpc::experimental::InterceptorBatchMethods;
using grpc::experimental::ServerRpcInfo;

class CallTimer : public grpc::experimental::Interceptor {
 public:
  // gRPC creates the interceptor as the call arrives: that is when the clock starts.
  CallTimer(std::string method, const CallObserver& observe)
      : method_(std::move(method)), observe_(observe), start_(std::chrono::steady_clock::now()) {}

  void Intercept(InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS))
      observe_(method_,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    methods->Proceed();
  }

 private:
  std::string method_;
  const CallObserver& observe_;  // owned by the factory, which outlives the server's calls
  std::chrono::steady_clock::time_point start_;
};

class CallTimerFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit CallTimerFactory(CallObserver observe) : observe_(std::move(observe)) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(ServerRpcInfo* info) override {
    if (info->type() != ServerRpcInfo::Type::UNARY) return nullptr;  // not intercepted
    return new CallTimer(shortMethodName(info->method()), observe_);
  }

 private:
  CallObserver observe_;
};

}  // namespace

std::string shortMethodName(std::string_view fullName) {
  const size_t slash = fullName.rfind('/');
  return std::string(slash == std::string_view::npos ? fullName : fullName.substr(slash + 1));
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> callTimerFactory(
    CallObserver observe) {
  return std::make_unique<CallTimerFactory>(std::move(observe));
}

}  // namespace tessera::rpc
