// JobInspector: the "why pending" panel of the console (see job_inspector.h).
#include "job_inspector.h"

#include <QComboBox>
#include <QFont>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

#include "core/engine_text.h"
#include "engine_text.h"
#include "job_table_model.h"
#include "service/mps_use.h"

namespace tessera::widgets {

namespace {

const QString kJobLink = QStringLiteral("job:");
const QString kSuggestionLink = QStringLiteral("suggest:");

QString html(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}

// The engine's word for the state, translated like its sentences.
QString stateWord(JobState s) {
  return displayText(jobStateText(s));
}

void showText(QLabel* label, const QString& text) {
  label->setText(text);
  label->setVisible(!text.isEmpty());
}

}  // namespace

JobInspector::JobInspector(QWidget* parent) : QWidget(parent) {
  buildUi();
  clear();
}

QLabel* JobInspector::addLabel(const char* objectName, bool links) {
  auto* label = new QLabel(this);
  label->setObjectName(QLatin1String(objectName));
  label->setWordWrap(true);
  if (links) {
    // Links are signals to the console, never URLs to open.
    label->setTextFormat(Qt::RichText);
    label->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    label->setOpenExternalLinks(false);
    connect(label, &QLabel::linkActivated, this, &JobInspector::onLink);
  } else {
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  }
  layout()->addWidget(label);
  return label;
}

QPushButton* JobInspector::addAction(QLayout* row, const QString& text, JobAction action) {
  auto* b = new QPushButton(text, this);
  connect(b, &QPushButton::clicked, this, [this, action] { request(action); });
  row->addWidget(b);
  buttons_.emplace_back(action, b);
  return b;
}

void JobInspector::buildUi() {
  auto* main = new QVBoxLayout(this);
  title_ = addLabel("title", false);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  reason_ = addLabel("reason", false);
  // The one sentence an operator came for: larger than everything else.
  QFont large = reason_->font();
  large.setPointSizeF(large.pointSizeF() * 1.5);
  large.setBold(true);
  reason_->setFont(large);
  clusterJob_ = addLabel("clusterJob", false);
  mpsLimits_ = addLabel("mpsLimits", false);
  summary_ = addLabel("summary", false);
  rejections_ = addLabel("rejections", true);
  queue_ = addLabel("queue", false);
  blockers_ = addLabel("blockers", true);
  fragmentation_ = addLabel("fragmentation", false);
  placement_ = addLabel("placement", false);
  suggestions_ = addLabel("suggestions", true);
  history_ = new QListWidget(this);
  history_->setObjectName(QStringLiteral("history"));
  main->addWidget(history_, 1);

  auto* actions = new QHBoxLayout;
  actions->setObjectName(QStringLiteral("actions"));
  addAction(actions, tr("Hold"), JobAction::Hold)->setObjectName(QStringLiteral("hold"));
  addAction(actions, tr("Release"), JobAction::Release)->setObjectName(QStringLiteral("release"));
  addAction(actions, tr("Preempt"), JobAction::Preempt)->setObjectName(QStringLiteral("preempt"));
  addAction(actions, tr("Cancel"), JobAction::Cancel)->setObjectName(QStringLiteral("cancel"));
  actions->addStretch(1);
  priorityClass_ = new QComboBox(this);
  priorityClass_->setObjectName(QStringLiteral("priorityClass"));
  priorityClass_->setToolTip(tr("Priority class to set"));
  actions->addWidget(priorityClass_);
  addAction(actions, tr("Set priority"), JobAction::SetPriority)
      ->setObjectName(QStringLiteral("setPriority"));
  main->addLayout(actions);
}

void JobInspector::setPriorityClasses(const QStringList& classes) {
  priorityClass_->clear();
  priorityClass_->addItems(classes);
  updateActions();
}

void JobInspector::setNow(Seconds now) {
  now_ = now;
  if (x_) showQueue();
}

void JobInspector::clear() {
  x_.reset();
  title_->setText(tr("No job selected"));
  for (QLabel* l : {reason_, clusterJob_, mpsLimits_, summary_, rejections_, queue_, blockers_,
                    fragmentation_, placement_, suggestions_})
    showText(l, {});
  history_->clear();
  updateActions();
}

void JobInspector::setExplanation(const Explanation& x) {
  x_ = x;
  showHeader();
  showClusterJob();
  showMpsLimits();
  showQueue();
  showBlockers();
  showText(fragmentation_, displayText(x.fragmentation));
  showText(placement_,
           x.placement.empty() ? QString() : tr("Placed on %1").arg(displayText(x.placement)));
  showSuggestions();
  showHistory();
  updateActions();
}

void JobInspector::setClusterJobs(const std::vector<JobInfo>& jobs) {
  clusterJobs_.clear();
  mpsJobs_.clear();
  for (const JobInfo& j : jobs) {
    if (j.external) clusterJobs_.emplace(j.row.job.id, j);
    if (j.row.job.perTask.kind == GpuRequest::Kind::Mps)
      mpsJobs_.emplace(j.row.job.id, j.row.job.perTask);
  }
  if (!x_) return;
  showClusterJob();
  showMpsLimits();
}

// "MPS limits: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M":
// what the job's MPS server holds each task to, in the variables an operator would check.
void JobInspector::showMpsLimits() {
  const auto it = x_ ? mpsJobs_.find(x_->job) : mpsJobs_.end();
  if (it == mpsJobs_.end()) return showText(mpsLimits_, {});
  QStringList vars;
  for (const auto& [name, value] : mpsEnvironment(it->second))
    vars << QStringLiteral("%1=%2").arg(QString::fromStdString(name),
                                        QString::fromStdString(value));
  showText(mpsLimits_, tr("MPS limits per task: %1").arg(vars.join(QStringLiteral(", "))));
}

// "Slurm job 4711: PENDING: Resources", and when that is not what Tessera decided, saying so:
// the operator then knows the cluster is not (yet) doing what the panel above explains.
void JobInspector::showClusterJob() {
  const auto it = x_ ? clusterJobs_.find(x_->job) : clusterJobs_.end();
  if (it == clusterJobs_.end()) return showText(clusterJob_, {});
  const JobInfo& info = it->second;
  QString text = tr("Slurm job %1: %2")
                     .arg(QString::fromStdString(info.external->id),
                          JobTableModel::slurmStateText(*info.external));
  if (JobTableModel::slurmDisagrees(info))
    text += QLatin1Char('\n') +
            tr("Slurm differs from Tessera's state (%1)").arg(stateWord(info.row.state));
  showText(clusterJob_, text);
}

QStringList JobInspector::rejectionLines(const NodeFilterResult& filter) {
  std::vector<std::pair<int, NodeReject>> causes;
  for (size_t i = 0; i < filter.rejected.size(); ++i)
    if (filter.rejected[i] > 0) causes.emplace_back(filter.rejected[i], static_cast<NodeReject>(i));
  // Largest cause first, as the engine's summary and `kubectl describe` order them.
  std::stable_sort(causes.begin(), causes.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  QStringList lines;
  for (const auto& [count, cause] : causes)
    lines << displayText(phrase(text::kNodesRejected, count, phrase(nodeRejectText(cause))));
  return lines;
}

void JobInspector::showHeader() {
  const Explanation& x = *x_;
  title_->setText(tr("Job %1 \u2014 %2").arg(x.job).arg(stateWord(x.state)));
  showText(reason_, displayText(x.dominantReason));
  // The counts behind the summary when the engine ran the filter; its sentence otherwise.
  if (x.filter.nodesChecked > 0)
    showText(summary_,
             tr("%1 of %2 nodes fit").arg(x.filter.fittingNodes()).arg(x.filter.nodesChecked));
  else
    showText(summary_, displayText(x.nodeSummary));
  QStringList lines = rejectionLines(x.filter);
  for (QString& l : lines) l = l.toHtmlEscaped();
  showText(rejections_, lines.join(QStringLiteral("<br>")));
}

void JobInspector::showQueue() {
  const Explanation& x = *x_;
  QStringList parts;
  if (x.queuePosition)
    parts << tr("Queue position %1 of %2").arg(*x.queuePosition).arg(x.queueLength);
  if (x.eta) {
    if (!now_)
      parts << tr("ETA at %1 s").arg(*x.eta);
    else if (*x.eta <= *now_)
      parts << tr("ETA now");
    else
      parts << tr("ETA in %1").arg(JobTableModel::durationText(*x.eta - *now_));
  } else if (x.state == JobState::Pending) {
    parts << tr("no ETA");
  }
  showText(queue_, parts.join(QStringLiteral(" \u00b7 ")));
}

void JobInspector::showBlockers() {
  const Explanation& x = *x_;
  QStringList parts;
  if (!x.blockingJobs.empty()) {
    QStringList links;
    for (JobId id : x.blockingJobs)
      links << QStringLiteral("<a href=\"%1%2\">%2</a>").arg(kJobLink).arg(id);
    parts << tr("Waiting for jobs %1").arg(links.join(QStringLiteral(", ")));
  }
  if (!x.blockingQueues.empty()) {
    QStringList teams;
    for (const std::string& t : x.blockingQueues) teams << html(t);
    parts << tr("Teams in the way: %1").arg(teams.join(QStringLiteral(", ")));
  }
  showText(blockers_, parts.join(QStringLiteral("<br>")));
}

QString JobInspector::counterfactualKindText(Counterfactual::Kind k) {
  switch (k) {
    case Counterfactual::Kind::Quota:
      return tr("Quota");
    case Counterfactual::Kind::Repartition:
      return tr("Repartition");
    case Counterfactual::Kind::JobsEnd:
      return tr("Jobs end");
    case Counterfactual::Kind::RelaxTopology:
      return tr("Relax topology");
    case Counterfactual::Kind::Preemption:
      return tr("Preemption");
    case Counterfactual::Kind::Release:
      return tr("Release");
  }
  return {};
}

void JobInspector::showSuggestions() {
  const Explanation& x = *x_;
  if (x.counterfactuals.empty()) {
    showText(suggestions_, {});
    return;
  }
  QStringList lines{tr("What would help:")};
  for (size_t i = 0; i < x.counterfactuals.size(); ++i) {
    const Counterfactual& c = x.counterfactuals[i];
    lines << QStringLiteral("%1: <a href=\"%2%3\">%4</a>")
                 .arg(counterfactualKindText(c.kind).toHtmlEscaped(), kSuggestionLink)
                 .arg(i)
                 .arg(displayText(c.text).toHtmlEscaped());
  }
  showText(suggestions_, lines.join(QStringLiteral("<br>")));
}

void JobInspector::showHistory() {
  history_->clear();
  for (const Text& line : x_->history) history_->addItem(displayText(line));
  history_->setVisible(!x_->history.empty());
}

void JobInspector::updateActions() {
  const std::optional<JobState> s = x_ ? std::optional(x_->state) : std::nullopt;
  const bool pending = s == JobState::Pending;
  const bool running = s == JobState::Running;
  const bool active = pending || running || s == JobState::Admitted;
  for (auto& [action, button] : buttons_) {
    bool on = false;
    switch (action) {
      case JobAction::Hold:
      case JobAction::Release:
        on = pending;
        break;
      case JobAction::Preempt:
        on = running;
        break;
      case JobAction::Cancel:
        on = active;
        break;
      case JobAction::SetPriority:
        on = (pending || running) && priorityClass_->count() > 0;
        break;
    }
    button->setEnabled(on);
  }
  priorityClass_->setEnabled(pending || running);
}

void JobInspector::onLink(const QString& href) {
  if (!x_) return;
  bool ok = false;
  if (href.startsWith(kJobLink)) {
    const JobId id = href.mid(kJobLink.size()).toULongLong(&ok);
    if (ok) emit jobActivated(id);
  } else if (href.startsWith(kSuggestionLink)) {
    const qsizetype i = href.mid(kSuggestionLink.size()).toLongLong(&ok);
    if (ok && i >= 0 && static_cast<size_t>(i) < x_->counterfactuals.size())
      emit suggestionActivated(x_->counterfactuals[static_cast<size_t>(i)]);
  }
}

void JobInspector::request(JobAction action) {
  if (!x_) return;
  const QString cls = action == JobAction::SetPriority ? priorityClass_->currentText() : QString();
  emit actionRequested(x_->job, action, cls);
}

}  // namespace tessera::widgets
