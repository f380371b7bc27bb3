#pragma once
// The metrics endpoint of tesserad: a minimal HTTP/1.1 server on POSIX sockets, one thread, for
// Prometheus to scrape.
//
//   GET /metrics  200, Content-Type: text/plain; version=0.0.4; charset=utf-8, body = render()
//   GET /         200, a line of text pointing at /metrics
//   GET other     404
//   HEAD          as GET, without the body
//   other methods 405 (with Allow: GET, HEAD)
//   malformed request, or request head over 8 KiB: 400
//
// Every response carries Content-Length and Connection: close; one request per connection.
// Connections are served concurrently by one poll() loop on non-blocking sockets, so a client that
// connects and sends nothing (or reads slowly) holds only its own slot: each connection has 5 s
// from accept to finish, at most 64 are open at once (the oldest is dropped for a new one), and
// stop() wakes the loop through a self-pipe however busy it is. The exporter speaks plain HTTP
// with no authentication: bind it to 127.0.0.1 or a scrape-only network.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/expected.h"

namespace tessera {

class HttpExporter {
 public:
  // `address` is "HOST:PORT" with an IPv4 HOST (127.0.0.1, 0.0.0.0; "localhost" means 127.0.0.1)
  // and port 0 to let the system pick a free one. Bind errors (address in use, bad address) name
  // the address. `render` is called for each GET /metrics on the exporter's thread; an exception
  // from it becomes a 500 response.
  static Expected<std::unique_ptr<HttpExporter>> start(const std::string& address,
                                                       std::function<std::string()> render);

  HttpExporter(const HttpExporter&) = delete;
  HttpExporter& operator=(const HttpExporter&) = delete;
  ~HttpExporter();

  // The bound port (the system's choice when started with port 0).
  [[nodiscard]] int port() const { return port_; }
  // Closes the listening socket and all connections and joins the thread; idempotent. Must not be
  // called from `render` (the thread would wait for itself).
  void stop();

 private:
  HttpExporter(int listenFd, int wakeRead, int wakeWrite, int port,
               std::function<std::string()> render);
  void run();

  int listenFd_;
  int wakeRead_;  // the self-pipe: stop() writes a byte, the poll loop sees it and returns
  int wakeWrite_;
  int port_;
  std::function<std::string()> render_;
  std::thread thread_;
  std::once_flag stopped_;
};

}  // namespace tessera
