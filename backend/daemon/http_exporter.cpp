// The metrics endpoint's HTTP server: the listening socket, one poll() loop over non-blocking
// connections, and the mapping from request to response (see http_exporter.h).
#include "daemon/http_exporter.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "core/strings.h"

namespace tessera {

namespace {

using Clock = std::chrono::steady_clock;
using Render = std::function<std::string()>;

constexpr size_t kMaxRequestBytes = 8 * 1024;
constexpr auto kConnectionTimeout = std::chrono::seconds(5);
constexpr auto kDrainTimeout = std::chrono::seconds(1);
constexpr auto kAcceptPause = std::chrono::milliseconds(100);
constexpr size_t kMaxConnections = 64;
constexpr size_t kMaxDrainPerStep = 64 * 1024;
constexpr int kListenBacklog = 64;
constexpr const char* kMetricsType = "text/plain; version=0.0.4; charset=utf-8";
constexpr const char* kTextType = "text/plain; charset=utf-8";

std::string errnoText(int err) {
  return std::generic_category().message(err);
}

// Owns a file descriptor, so that no error path leaks one.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  [[nodiscard]] int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// ---- the listening socket ------------------------------------------------------------------

Expected<sockaddr_in> parseAddress(const std::string& address) {
  const auto bad = [&](const std::string& why) {
    return Error{"invalid listen address '" + address + "': " + why, {}};
  };
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return bad("expected HOST:PORT, e.g. 127.0.0.1:9464");
  std::string host = address.substr(0, colon);
  const std::string_view portText = std::string_view(address).substr(colon + 1);
  if (host == "localhost") host = "127.0.0.1";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
    return bad("'" + host + "' is not an IPv4 address");
  int port = -1;
  const char* end = portText.data() + portText.size();
  const auto [ptr, ec] = std::from_chars(portText.data(), end, port);
  if (ec != std::errc{} || ptr != end || port < 0 || port > 65535)
    return bad("the port must be a number from 0 to 65535");
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return addr;
}

Expected<Fd> listenOn(const std::string& address, const sockaddr_in& addr) {
  const auto fail = [&](int err) {
    return Error{"cannot listen on " + address + ": " + errnoText(err), {}};
  };
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return fail(errno);
  // A restarted tesserad must get its port back while old connections sit in TIME_WAIT.
  const int one = 1;
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) return fail(errno);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    return fail(errno);
  if (::listen(fd.get(), kListenBacklog) != 0) return fail(errno);
  return fd;
}

Expected<int> boundPort(int fd, const std::string& address) {
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0)
    return Error{"cannot listen on " + address + ": " + errnoText(errno), {}};
  return static_cast<int>(ntohs(bound.sin_port));
}

// ---- requests and responses ----------------------------------------------------------------

std::string reply(int status, const char* reason, const char* contentType, const std::string& body,
                  bool headOnly = false, const char* extraHeaders = "") {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n";
  out += std::string("Content-Type: ") + contentType + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += extraHeaders;
  out += "Connection: close\r\n\r\n";
  if (!headOnly) out += body;
  return out;
}

std::string badRequest() {
  return reply(400, "Bad Request", kTextType, "bad request\n");
}

// Where the request head ends (just past its blank line), or npos. Bare "\n" line ends are
// accepted as RFC 9112 recommends.
size_t headEnd(const std::string& in) {
  const size_t crlf = in.find("\r\n\r\n");
  const size_t lf = in.find("\n\n");
  return std::min(crlf == std::string::npos ? crlf : crlf + 4,
                  lf == std::string::npos ? lf : lf + 2);
}

struct RequestLine {
  std::string_view method;
  std::string_view path;  // without the query string
};

bool isUpperToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

// "METHOD /target HTTP/1.x" followed by "Name: value" header lines; nullopt when malformed.
std::optional<RequestLine> parseHead(std::string_view head) {
  std::vector<std::string_view> lines = split(head, '\n');
  for (auto& line : lines)
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::vector<std::string_view> parts = split(lines.front(), ' ');
  if (parts.size() != 3 || !isUpperToken(parts[0]) || !parts[1].starts_with('/') ||
      (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0"))
    return std::nullopt;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.empty()) continue;  // the blank line that ends the head
    // Folded continuation lines (leading blank) are obsolete and refused, as RFC 9112 allows.
    if (line.front() == ' ' || line.front() == '\t') return std::nullopt;
    const size_t colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos) return std::nullopt;
  }
  return RequestLine{parts[0], parts[1].substr(0, parts[1].find('?'))};
}

std::string respond(std::string_view head, const Render& render) {
  const auto request = parseHead(head);
  if (!request) return badRequest();
  if (request->method != "GET" && request->method != "HEAD")
    return reply(405, "Method Not Allowed", kTextType, "only GET and HEAD are supported\n", false,
                 "Allow: GET, HEAD\r\n");
  const bool headOnly = request->method == "HEAD";
  if (request->path == "/")
    return reply(200, "OK", kTextType, "tesserad: Prometheus metrics are at /metrics\n", headOnly);
  if (request->path != "/metrics")
    return reply(404, "Not Found", kTextType, "not found\n", headOnly);
  try {
    return reply(200, "OK", kMetricsType, render(), headOnly);
  } catch (const std::exception& e) {
    return reply(500, "Internal Server Error", kTextType,
                 std::string("cannot render metrics: ") + e.what() + "\n", headOnly);
  }
}

// ---- connections ---------------------------------------------------------------------------

struct Connection {
  enum class Phase { Reading, Writing, Draining };
  Fd fd;
  Clock::time_point deadline;
  Phase phase = Phase::Reading;
  std::string in;
  std::string out;
  size_t sent = 0;
};

bool wouldBlock(int err) {
  return err == EAGAIN || err == EWOULDBLOCK;
}

void startReply(Connection& c, std::string response) {
  c.in.clear();
  c.in.shrink_to_fit();
  c.out = std::move(response);
  c.phase = Connection::Phase::Writing;
}

void readRequest(Connection& c, const Render& render) {
  char buf[4096];
  bool eof = false;
  while (c.in.size() <= kMaxRequestBytes) {
    const ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, 0);
    if (n > 0) {
      c.in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && !wouldBlock(errno)) {
      c.fd.reset();
      return;
    }
    eof = n == 0;
    break;
  }
  const size_t end = headEnd(c.in);
  if (end != std::string::npos && end <= kMaxRequestBytes)
    startReply(c, respond(std::string_view(c.in).substr(0, end), render));
  else if (c.in.size() > kMaxRequestBytes || (eof && !c.in.empty()))
    startReply(c, badRequest());
  else if (eof)
    c.fd.reset();  // connected and left without a word
}

// After the response the write side is shut and what the client still sends is read and dropped
// until it closes: closing with unread input makes the kernel send a reset, which can destroy the
// response before the client has read it.
void writeResponse(Connection& c) {
  while (c.sent < c.out.size()) {
    const ssize_t n =
        ::send(c.fd.get(), c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
    if (n > 0) {
      c.sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && wouldBlock(errno)) return;
    c.fd.reset();
    return;
  }
  ::shutdown(c.fd.get(), SHUT_WR);
  c.phase = Connection::Phase::Draining;
  c.deadline = std::min(c.deadline, Clock::now() + kDrainTimeout);
}

// Bounded per call so that a client streaming data cannot hold the loop.
void drain(Connection& c) {
  char buf[4096];
  for (size_t total = 0; total < kMaxDrainPerStep;) {
    const ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, 0);
    if (n > 0) {
      total += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && wouldBlock(errno)) return;
    c.fd.reset();  // end of input or an error: done either way
    return;
  }
}

void step(Connection& c, const Render& render) {
  if (c.phase == Connection::Phase::Reading) readRequest(c, render);
  if (c.fd.get() >= 0 && c.phase == Connection::Phase::Writing) writeResponse(c);
  if (c.fd.get() >= 0 && c.phase == Connection::Phase::Draining) drain(c);
}

// Accepts every pending connection; false when out of descriptors or memory, the caller then
// pauses accepting (the listening socket would otherwise stay readable and spin the loop).
bool acceptAll(int listenFd, std::vector<Connection>& conns) {
  for (;;) {
    Fd fd(::accept4(listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (fd.get() < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return errno != EMFILE && errno != ENFILE && errno != ENOBUFS && errno != ENOMEM;
    }
    // Dropping the oldest keeps a crowd of silent clients from locking Prometheus out.
    if (conns.size() >= kMaxConnections) conns.erase(conns.begin());
    Connection& c = conns.emplace_back();
    c.fd = std::move(fd);
    c.deadline = Clock::now() + kConnectionTimeout;
  }
}

// Milliseconds until the first connection deadline or the end of an accept pause, rounded up so
// that poll() does not wake early and spin; -1 (wait for ever) when there is neither.
int pollTimeout(const std::vector<Connection>& conns, Clock::time_point acceptResume) {
  std::optional<Clock::time_point> first;
  for (const auto& c : conns) first = first ? std::min(*first, c.deadline) : c.deadline;
  const auto now = Clock::now();
  if (acceptResume > now) first = first ? std::min(*first, acceptResume) : acceptResume;
  if (!first) return -1;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(*first - now).count();
  return static_cast<int>(std::clamp<decltype(ms)>(ms, 0, 60'000));
}

}  // namespace

// ---- the exporter --------------------------------------------------------------------------

HttpExporter::HttpExporter(int listenFd, int wakeRead, int wakeWrite, int port, Render render)
    : listenFd_(listenFd),
      wakeRead_(wakeRead),
      wakeWrite_(wakeWrite),
      port_(port),
      render_(std::move(render)) {}

HttpExporter::~HttpExporter() {
  stop();
}

Expected<std::unique_ptr<HttpExporter>> HttpExporter::start(const std::string& address,
                                                            Render render) {
  TESSERA_TRY(addr, parseAddress(address));
  TESSERA_TRY(listener, listenOn(address, addr));
  TESSERA_TRY(port, boundPort(listener.get(), address));
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC | O_NONBLOCK) != 0)
    return Error{"cannot start the metrics exporter: " + errnoText(errno), {}};
  std::unique_ptr<HttpExporter> exporter(
      new HttpExporter(listener.release(), pipeFds[0], pipeFds[1], port, std::move(render)));
  try {
    exporter->thread_ = std::thread(&HttpExporter::run, exporter.get());
  } catch (const std::system_error& e) {
    return Error{std::string("cannot start the metrics exporter thread: ") + e.what(), {}};
  }
  return exporter;
}

void HttpExporter::stop() {
  std::call_once(stopped_, [this] {
    const char wake = 1;
    while (::write(wakeWrite_, &wake, 1) < 0 && errno == EINTR) {
    }
    if (thread_.joinable()) thread_.join();
    ::close(listenFd_);
    ::close(wakeRead_);
    ::close(wakeWrite_);
  });
}

void HttpExporter::run() {
  std::vector<Connection> conns;
  std::vector<pollfd> fds;
  Clock::time_point acceptResume;
  for (;;) {
    const bool accepting = Clock::now() >= acceptResume;
    fds.assign({{wakeRead_, POLLIN, 0}, {accepting ? listenFd_ : -1, POLLIN, 0}});
    for (const auto& c : conns) {
      const bool writing = c.phase == Connection::Phase::Writing;
      fds.push_back({c.fd.get(), static_cast<short>(writing ? POLLOUT : POLLIN), 0});
    }
    if (::poll(fds.data(), fds.size(), pollTimeout(conns, acceptResume)) < 0) {
      // EINTR, or ENOMEM that may pass: wait briefly rather than spin.
      if (errno != EINTR) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    if (fds[0].revents != 0) return;  // stop()
    for (size_t i = 0; i < conns.size(); ++i)
      if (fds[i + 2].revents != 0) step(conns[i], render_);
    const auto now = Clock::now();
    std::erase_if(conns,
                  [now](const Connection& c) { return c.fd.get() < 0 || now >= c.deadline; });
    if ((fds[1].revents & POLLIN) != 0 && !acceptAll(listenFd_, conns))
      acceptResume = now + kAcceptPause;
  }
}

}  // namespace tessera
