#include "console_session.h"

#include <QCoreApplication>
#include <QThreadPool>

#include "engine_text.h"
#include "scheduler/command.h"
#include "service/node_inventory_source.h"

namespace tessera::widgets {

namespace {
// The engine's refusal in the operator's language when it came as a sentence.
QString messageOf(const ApiError& e) {
  return e.text.empty() ? QString::fromStdString(e.message) : displayText(e.text);
}
}  // namespace

ConsoleSession::ConsoleSession(std::shared_ptr<ClusterSession> session, QString description,
                               QObject* parent)
    : QObject(parent), session_(std::move(session)), description_(std::move(description)) {
  connect(&timer_, &QTimer::timeout, this, &ConsoleSession::refresh);
  coalesce_.setSingleShot(true);
  coalesce_.setInterval(50);
  connect(&coalesce_, &QTimer::timeout, this, &ConsoleSession::refresh);
  const QPointer<ConsoleSession> self(this);
  cancelWatch_ = session_->watchChanges([self, alive = alive_] {
    deliver(self, alive, [](ConsoleSession& s) {
      if (!s.coalesce_.isActive()) s.coalesce_.start();
    });
  });
}

ConsoleSession::~ConsoleSession() {
  *alive_ = false;
  timer_.stop();
  if (cancelWatch_) cancelWatch_();
}

void ConsoleSession::setRefreshInterval(int ms) {
  if (ms <= 0) {
    timer_.stop();
    return;
  }
  timer_.start(ms);
}

void ConsoleSession::onWorker(std::function<void()> call) {
  // The session outlives the call: the lambda holds it, so closing the window mid-call is safe.
  QThreadPool::globalInstance()->start([session = session_, call = std::move(call)] { call(); });
}

template <typename F>
void ConsoleSession::deliver(const QPointer<ConsoleSession>& self,
                             const std::shared_ptr<std::atomic<bool>>& alive, F&& f) {
  if (!*alive) return;
  QMetaObject::invokeMethod(
      QCoreApplication::instance(),
      [self, alive, f = std::forward<F>(f)]() mutable {
        if (*alive && self) f(*self);
      },
      Qt::QueuedConnection);
}

void ConsoleSession::refresh() {
  const QPointer<ConsoleSession> self(this);
  const uint64_t sg = ++snapshotGen_;
  onWorker([self, sg, session = session_, alive = alive_] {
    session->snapshot([self, sg, alive](std::variant<ClusterSnapshot, ApiError> r) {
      deliver(self, alive, [sg, r = std::move(r)](ConsoleSession& s) {
        if (sg != s.snapshotGen_) return;  // a newer refresh is on its way
        if (const auto* e = std::get_if<ApiError>(&r)) {
          emit s.sessionError(QString::fromStdString(e->message));
          return;
        }
        emit s.sessionOk();
        emit s.snapshotReady(std::get<ClusterSnapshot>(r));
      });
    });
  });
  const uint64_t jg = ++jobsGen_;
  JobFilter filter;
  filter.activeOnly = true;
  filter.limit = jobLimit_;
  onWorker([self, jg, filter, session = session_, alive = alive_] {
    session->jobs(filter, [self, jg, alive](std::variant<JobPage, ApiError> r) {
      deliver(self, alive, [jg, r = std::move(r)](ConsoleSession& s) {
        if (jg != s.jobsGen_ || std::holds_alternative<ApiError>(r)) return;
        emit s.jobsReady(std::get<JobPage>(r).jobs);
      });
    });
  });
  refreshInventory();
}

void ConsoleSession::refreshInventory() {
  auto* source = dynamic_cast<NodeInventorySource*>(session_.get());
  if (!source) return;
  const QPointer<ConsoleSession> self(this);
  const uint64_t gen = ++inventoryGen_;
  using Nodes = std::vector<NodeInventoryView>;
  // `session` keeps `source` (the same object) alive for the call.
  onWorker([self, gen, source, session = session_, alive = alive_] {
    source->nodeInventory([self, gen, alive](std::variant<Nodes, ApiError> r) {
      deliver(self, alive, [gen, r = std::move(r)](ConsoleSession& s) {
        if (gen != s.inventoryGen_ || std::holds_alternative<ApiError>(r)) return;
        emit s.nodeInventoryReady(std::get<Nodes>(r));
      });
    });
  });
}

void ConsoleSession::act(const Command& command, bool dryRun) {
  const QPointer<ConsoleSession> self(this);
  const QString what = displayText(describeText(command));
  onWorker([self, command, dryRun, what, session = session_, alive = alive_] {
    session->act(command, dryRun, Caller{}, std::nullopt,
                 [self, dryRun, what, alive](std::variant<CommandResult, ApiError> r) {
                   deliver(self, alive, [dryRun, what, r = std::move(r)](ConsoleSession& s) {
                     if (const auto* e = std::get_if<ApiError>(&r)) {
                       emit s.actionFailed(what, messageOf(*e));
                       return;
                     }
                     emit s.actionDone(what, std::get<CommandResult>(r), dryRun);
                     if (!dryRun) s.refresh();
                   });
                 });
  });
}

void ConsoleSession::preview(const Command& command, QObject* context, PreviewReply reply) {
  const QPointer<ConsoleSession> self(this);
  const QPointer<QObject> guard(context);
  const uint64_t gen = ++previewGen_;
  onWorker([self, command, gen, guard, reply = std::move(reply), session = session_,
            alive = alive_] {
    session->act(command, true, Caller{}, std::nullopt,
                 [self, gen, guard, reply, alive](std::variant<CommandResult, ApiError> r) {
                   deliver(self, alive, [gen, guard, reply, r = std::move(r)](ConsoleSession& s) {
                     if (gen != s.previewGen_ || !guard) return;
                     if (const auto* e = std::get_if<ApiError>(&r))
                       reply(messageOf(*e));
                     else
                       reply(std::get<CommandResult>(r));
                   });
                 });
  });
}

void ConsoleSession::explain(JobId job) {
  const QPointer<ConsoleSession> self(this);
  const uint64_t gen = ++explainGen_;
  // The last cycle's verdict first (a daemon answers it from its published view, never behind a
  // cycle), then the whole explanation; a brief answer that comes after the whole one is dropped.
  // Both replies are delivered on the GUI thread, so the flag needs no lock.
  auto whole = std::make_shared<bool>(false);
  onWorker([self, job, gen, whole, session = session_, alive = alive_] {
    const auto answer = [self, gen, whole, alive](bool isWhole) {
      return [self, gen, whole, alive, isWhole](std::variant<Explanation, ApiError> r) {
        deliver(self, alive, [gen, whole, isWhole, r = std::move(r)](ConsoleSession& s) {
          if (gen != s.explainGen_ || std::holds_alternative<ApiError>(r) || *whole) return;
          *whole = isWhole;
          emit s.explanationReady(std::get<Explanation>(r));
        });
      };
    };
    session->explainBrief(job, answer(false));
    session->explainJob(job, answer(true));
  });
}

}  // namespace tessera::widgets
