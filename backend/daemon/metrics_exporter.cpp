// The metrics endpoint: address checks and error translation around prometheus::Exposer (see
// metrics_exporter.h).
#include "daemon/metrics_exporter.h"

#include <CivetServer.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <prometheus/exposer.h>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <exception>
#include <string_view>
#include <system_error>
#include <thread>

namespace tessera {

namespace {

// civetweb's per-request limit: a client that connects and sends nothing holds one of the two
// worker threads for at most this long.
constexpr const char* kRequestTimeoutMs = "5000";
constexpr const char* kThreads = "2";

// Parsed "HOST:PORT": civetweb's spelling of it ("127.0.0.1:9464") and the socket address.
struct ListenAddress {
  std::string civetweb;
  sockaddr_in socket{};
};

Expected<ListenAddress> parseAddress(const std::string& address) {
  const auto bad = [&](const std::string& why) {
    return Error{"invalid listen address '" + address + "': " + why, {}};
  };
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return bad("expected HOST:PORT, e.g. 127.0.0.1:9464");
  std::string host = address.substr(0, colon);
  const std::string_view portText = std::string_view(address).substr(colon + 1);
  if (host == "localhost") host = "127.0.0.1";
  ListenAddress a;
  a.socket.sin_family = AF_INET;
  if (::inet_pton(AF_INET, host.c_str(), &a.socket.sin_addr) != 1)
    return bad("'" + host + "' is not an IPv4 address");
  int port = -1;
  const char* end = portText.data() + portText.size();
  const auto [ptr, ec] = std::from_chars(portText.data(), end, port);
  if (ec != std::errc{} || ptr != end || port < 0 || port > 65535)
    return bad("the port must be a number from 0 to 65535");
  a.socket.sin_port = htons(static_cast<uint16_t>(port));
  a.civetweb = host + ":" + std::to_string(port);
  return a;
}

// civetweb throws one generic message for every bind failure; binding the same address once
// more (as civetweb does, with SO_REUSEADDR) recovers the reason the operator needs.
std::string bindFailure(const sockaddr_in& addr) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::generic_category().message(errno);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int err = 0;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(fd, 1) != 0)
    err = errno;
  ::close(fd);
  return err ? std::generic_category().message(err) : std::string();
}

// While the server starts, civetweb's own complaint ("cannot bind to ...") goes unprinted: the
// daemon logs the failure once, in its own format. Afterwards civetweb prints as it always does.
thread_local bool tl_starting = false;

int logMessage(const mg_connection*, const char*) {
  return tl_starting ? 1 : 0;  // 1: handled (not printed)
}

const CivetCallbacks& callbacks() {
  static const CivetCallbacks c = [] {
    CivetCallbacks cb;
    cb.log_message = logMessage;
    return cb;
  }();
  return c;
}

// Opens and closes a connection to host:port (the exporter's own socket); failures do not matter.
void knock(const std::string& host, int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  ::close(fd);
}

}  // namespace

Expected<std::unique_ptr<MetricsExporter>> MetricsExporter::start(
    const std::string& address,
    const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables) {
  TESSERA_TRY(parsed, parseAddress(address));
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    tl_starting = true;
    exposer = std::make_unique<prometheus::Exposer>(
        std::vector<std::string>{"listening_ports", parsed.civetweb, "num_threads", kThreads,
                                 "request_timeout_ms", kRequestTimeoutMs},
        &callbacks());
    tl_starting = false;
  } catch (const std::exception& e) {
    tl_starting = false;
    const std::string reason = bindFailure(parsed.socket);
    return Error{"cannot listen on " + address + ": " + (reason.empty() ? e.what() : reason), {}};
  }
  const std::vector<int> ports = exposer->GetListeningPorts();
  if (ports.empty()) return Error{"cannot listen on " + address + ": no port bound", {}};
  for (const auto& c : collectables) exposer->RegisterCollectable(c);
  // Bound to any address: knock on loopback, which is one of them.
  std::string host = parsed.civetweb.substr(0, parsed.civetweb.rfind(':'));
  if (host == "0.0.0.0") host = "127.0.0.1";
  return std::unique_ptr<MetricsExporter>(
      new MetricsExporter(std::move(exposer), std::move(host), ports.front()));
}

MetricsExporter::MetricsExporter(std::unique_ptr<prometheus::Exposer> exposer, std::string wakeHost,
                                 int port)
    : exposer_(std::move(exposer)), wakeHost_(std::move(wakeHost)), port_(port) {}

MetricsExporter::~MetricsExporter() {
  stop();
}

void MetricsExporter::stop() {
  if (!exposer_) return;
  // civetweb 1.15's accept loop polls in 2 s quanta and sees the stop flag only between them, so
  // a plain stop takes up to 2 s (tesserad's SIGTERM would wait for it). Connections wake the
  // poll: knock until the server is gone.
  std::atomic<bool> stopped{false};
  std::thread knocker([this, &stopped] {
    while (!stopped) {
      knock(wakeHost_, port_);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  exposer_.reset();  // CivetServer's destructor stops civetweb and joins its threads
  stopped = true;
  knocker.join();
}

}  // namespace tessera
