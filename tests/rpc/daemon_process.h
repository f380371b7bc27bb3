#pragma once
// A real tesserad process for end-to-end tests: started on free loopback ports (it reports the
// ports it bound in its "serving" log line), stopped with SIGTERM or killed with SIGKILL.
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QtTest>

#include <memory>
#include <string>

#include "rpc/client.h"

namespace tessera::test {

class Daemon {
 public:
  // Starts tesserad with `args` (plus --listen/--metrics-listen on free ports unless given) and
  // waits until it serves; false with the log in `log()` when it exits or does not serve.
  bool start(const QStringList& args, int timeoutMs = 30000) {
    process_ = std::make_unique<QProcess>();
    output_.clear();
    QStringList all = args;
    if (!args.contains("--listen"))
      all << "--listen"
          << "127.0.0.1:0";
    if (!args.contains("--metrics-listen"))
      all << "--metrics-listen"
          << "127.0.0.1:0";
    process_->setProcessChannelMode(QProcess::MergedChannels);
    process_->start(TESSERAD_BIN, all);
    if (!process_->waitForStarted(5000)) return false;
    QElapsedTimer t;
    t.start();
    static const QRegularExpression serving(R"(msg=serving .*port=(\d+) metrics_port=(\d+|off))");
    while (t.elapsed() < timeoutMs) {
      process_->waitForReadyRead(100);
      output_ += QString::fromUtf8(process_->readAll());
      const auto m = serving.match(output_);
      if (m.hasMatch()) {
        port_ = m.captured(1).toInt();
        metricsPort_ = m.captured(2) == "off" ? 0 : m.captured(2).toInt();
        return true;
      }
      if (process_->state() == QProcess::NotRunning) return false;
    }
    return false;
  }
  // SIGTERM and wait; the exit code (-1 when it did not stop in time).
  int terminate(int timeoutMs = 20000) {
    if (!process_) return -1;
    process_->terminate();
    if (!process_->waitForFinished(timeoutMs)) return -1;
    output_ += QString::fromUtf8(process_->readAll());
    return process_->exitCode();
  }
  void kill() {
    if (!process_) return;
    process_->kill();
    process_->waitForFinished(5000);
    output_ += QString::fromUtf8(process_->readAll());
  }
  int waitExit(int timeoutMs = 30000) {
    if (!process_->waitForFinished(timeoutMs)) return -1;
    output_ += QString::fromUtf8(process_->readAll());
    return process_->exitCode();
  }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] int metricsPort() const { return metricsPort_; }
  [[nodiscard]] std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] QString log() {
    if (process_) output_ += QString::fromUtf8(process_->readAll());
    return output_;
  }
  // The body of GET /metrics (empty when the endpoint does not answer).
  [[nodiscard]] QByteArray scrapeMetrics() const {
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, static_cast<quint16>(metricsPort_));
    if (!socket.waitForConnected(5000)) return {};
    socket.write("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
    QByteArray reply;
    while (socket.waitForReadyRead(5000)) reply += socket.readAll();  // the server closes
    const qsizetype body = reply.indexOf("\r\n\r\n");
    return body < 0 ? QByteArray() : reply.mid(body + 4);
  }
  std::unique_ptr<rpc::RemoteSession> client(const std::string& token = {},
                                             const std::string& ca = {},
                                             const std::string& serverName = {}) const {
    rpc::ClientOptions o;
    o.address = address();
    o.token = token;
    o.caFile = ca;
    o.serverName = serverName;
    o.timeoutSeconds = 20;
    auto c = rpc::RemoteSession::connect(o);
    if (!c) qFatal("client: %s", c.error().str().c_str());
    return std::move(*c);
  }
  ~Daemon() {
    if (process_ && process_->state() != QProcess::NotRunning) kill();
  }

 private:
  std::unique_ptr<QProcess> process_;
  QString output_;
  int port_ = 0;
  int metricsPort_ = 0;
};

}  // namespace tessera::test
