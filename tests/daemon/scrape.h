#pragma once
// For the metrics tests: a blocking HTTP GET over a plain socket (no client library between the
// test and the exporter), and a reader of the Prometheus text format that gathers each family's
// type and label names, so tests can compare what is served without caring about order.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

namespace tessera::test {

struct HttpReply {
  std::string head;  // status line and headers
  std::string body;
  [[nodiscard]] std::string statusLine() const { return head.substr(0, head.find("\r\n")); }
};

// Sends `request` to 127.0.0.1:port and reads until the server closes (or 5 s pass).
inline HttpReply httpExchange(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string raw;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    for (;;) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) break;
      char buf[65536];
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      raw.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  HttpReply r;
  const size_t end = raw.find("\r\n\r\n");
  r.head = raw.substr(0, end);
  if (end != std::string::npos) r.body = raw.substr(end + 4);
  return r;
}

inline HttpReply httpGet(int port, const std::string& path) {
  return httpExchange(port, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
}

struct FamilyShape {
  std::string type;
  std::set<std::string> labels;  // of all its series; "le" and "quantile" left out
  size_t series = 0;
};

namespace detail {

// The label names of a sample line's "{...}" starting at `open`, honouring escaped quotes.
inline std::set<std::string> labelNames(const std::string& line, size_t open) {
  std::set<std::string> names;
  size_t i = open + 1;
  while (i < line.size() && line[i] != '}') {
    const size_t eq = line.find('=', i);
    if (eq == std::string::npos) break;
    const std::string name = line.substr(i, eq - i);
    if (name != "le" && name != "quantile") names.insert(name);
    i = eq + 2;  // past ="
    while (i < line.size() && line[i] != '"') i += line[i] == '\\' ? size_t{2} : size_t{1};
    i += 1;  // past the closing quote
    if (i < line.size() && line[i] == ',') ++i;
  }
  return names;
}

}  // namespace detail

// Every family of a scrape by name. A sample is counted for its family, histograms' and
// summaries' _bucket/_sum/_count samples for theirs.
inline std::map<std::string, FamilyShape> familiesOf(const std::string& text) {
  std::map<std::string, FamilyShape> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream t(line.substr(7));
      std::string name, type;
      t >> name >> type;
      out[name].type = type;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const size_t open = line.find_first_of("{ ");
    std::string name = line.substr(0, open);
    if (!out.count(name))
      for (const char* suffix : {"_bucket", "_sum", "_count"})
        if (name.size() > std::string(suffix).size() && name.ends_with(suffix) &&
            out.count(name.substr(0, name.size() - std::string(suffix).size())))
          name = name.substr(0, name.size() - std::string(suffix).size());
    FamilyShape& f = out[name];
    ++f.series;
    if (open != std::string::npos && line[open] == '{')
      for (const std::string& l : detail::labelNames(line, open)) f.labels.insert(l);
  }
  return out;
}

// The value of the sample line that starts with `series` + " " (exact name and labels), or -1.
inline double sampleValue(const std::string& text, const std::string& series) {
  const size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

}  // namespace tessera::test
