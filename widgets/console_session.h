#pragma once
// The console's view of a scheduler session: wraps a ClusterSession - the embedded engine
// (Backend) or a remote tesserad (RemoteSession), the widgets cannot tell which - and turns its
// asynchronous replies into Qt signals on the GUI thread. Calls never block the GUI: they run on
// a worker thread (a remote call waits on the network there). Every request carries a
// generation: a reply older than the latest one of its kind is dropped, so a slow answer never
// overwrites a newer one.
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>
#include <variant>

#include "service/node_report.h"
#include "service/session.h"

namespace tessera::widgets {

class ConsoleSession : public QObject {
  Q_OBJECT
 public:
  ConsoleSession(std::shared_ptr<ClusterSession> session, QString description,
                 QObject* parent = nullptr);
  ~ConsoleSession() override;

  [[nodiscard]] const QString& description() const { return description_; }
  // The session itself, for panels that make their own calls (the metric charts).
  [[nodiscard]] const std::shared_ptr<ClusterSession>& session() const { return session_; }
  // Snapshot and active jobs every `ms` (0 = only on refresh()).
  void setRefreshInterval(int ms);
  // At most this many active jobs per refresh (the queue tables show the first ones by id).
  void setJobLimit(size_t limit) { jobLimit_ = limit; }

  // A dry run for a preview (a job dragged over the heatmap): its answer - the result, or the
  // refusal's message - goes only to `reply`, on the GUI thread and while `context` lives; never
  // to actionDone / actionFailed, so previews, asked at every new hover target, stay out of the
  // Activity log. A newer preview supersedes an older one: the older answer is dropped.
  using PreviewReply = std::function<void(const std::variant<CommandResult, QString>&)>;
  void preview(const tessera::Command& command, QObject* context, PreviewReply reply);

 public slots:
  void refresh();
  void act(const tessera::Command& command, bool dryRun);
  void explain(tessera::JobId job);

 signals:
  void snapshotReady(const tessera::ClusterSnapshot& snapshot);
  // Active jobs (the first setJobLimit() by id); times relate to the latest snapshot's `now`.
  void jobsReady(const std::vector<tessera::JobInfo>& jobs);
  // Every node that reported its inventory, with each refresh, from a session that keeps node
  // inventories (NodeInventorySource: tesserad, the embedded backend); a failed call (a server
  // too old for ListNodeInventory) sends nothing.
  void nodeInventoryReady(const std::vector<tessera::NodeInventoryView>& nodes);
  void explanationReady(const tessera::Explanation& explanation);
  void actionDone(const QString& what, const tessera::CommandResult& result, bool dryRun);
  void actionFailed(const QString& what, const QString& message);
  // A refresh failed (the server went away, a token was refused): the session state for the
  // status bar.
  void sessionError(const QString& message);
  void sessionOk();

 private:
  // Runs `call` on the worker pool; its reply comes back through deliver() on the GUI thread.
  void onWorker(std::function<void()> call);
  void refreshInventory();
  // Hands `f` to the GUI thread; it runs only if the ConsoleSession still exists. Static: the
  // worker threads never touch `this`.
  template <typename F>
  static void deliver(const QPointer<ConsoleSession>& self,
                      const std::shared_ptr<std::atomic<bool>>& alive, F&& f);

  std::shared_ptr<ClusterSession> session_;
  QString description_;
  QTimer timer_;
  // Changes pushed by the session start a refresh after this short pause, so a burst of events
  // costs one refresh and a single change reaches the screen within ~100 ms.
  QTimer coalesce_;
  ClusterSession::CancelWatch cancelWatch_;
  size_t jobLimit_ = 5000;
  std::atomic<uint64_t> snapshotGen_{0}, jobsGen_{0}, explainGen_{0}, previewGen_{0},
      inventoryGen_{0};
  std::shared_ptr<std::atomic<bool>> alive_ = std::make_shared<std::atomic<bool>>(true);
};

}  // namespace tessera::widgets
