#pragma once
// The metrics endpoint of tesserad: prometheus-cpp's Exposer (civetweb) serving GET /metrics in
// the Prometheus text format, for Prometheus to scrape. This wrapper adds what the daemon
// promises on top of the library: an IPv4 HOST:PORT address checked before anything binds
// ("localhost" means 127.0.0.1, port 0 lets the system pick), and bind failures reported as
// "cannot listen on ADDRESS: <reason>" rather than civetweb's generic exception.
//
// civetweb serves each scrape on one of its own threads (two), with a 5 s request timeout, one
// request per connection. Other paths answer 404. The exporter speaks plain HTTP with no
// authentication: bind it to 127.0.0.1 or a scrape-only network.
#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"

namespace prometheus {
class Collectable;
class Exposer;
}  // namespace prometheus

namespace tessera {

class MetricsExporter {
 public:
  // Serves the union of `collectables` (held weakly: one that is gone is skipped at scrape time).
  static Expected<std::unique_ptr<MetricsExporter>> start(
      const std::string& address,
      const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables);

  MetricsExporter(const MetricsExporter&) = delete;
  MetricsExporter& operator=(const MetricsExporter&) = delete;
  ~MetricsExporter();

  // The bound port (the system's choice when started with port 0).
  [[nodiscard]] int port() const { return port_; }
  // Closes the listening socket and waits for scrapes in flight; idempotent.
  void stop();

 private:
  MetricsExporter(std::unique_ptr<prometheus::Exposer> exposer, std::string wakeHost, int port);

  std::unique_ptr<prometheus::Exposer> exposer_;
  std::string wakeHost_;  // where stop() knocks to wake civetweb's accept loop
  int port_;
};

}  // namespace tessera
