// IdleGpuPanel: the idle-GPU list with its rule and reclaim actions (see idle_gpu_panel.h).
#include "idle_gpu_panel.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tessera::widgets {

namespace {

const QString kThresholdKey = QStringLiteral("idle/thresholdPercent");
const QString kMinimumKey = QStringLiteral("idle/minimumMinutes");

bool askWithMessageBox(QWidget* parent, const QString& title, const QString& text) {
  return QMessageBox::question(parent, title, text, QMessageBox::Yes | QMessageBox::No,
                               QMessageBox::No) == QMessageBox::Yes;
}

}  // namespace

IdleGpuPanel::IdleGpuPanel(IdleGpuModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      sorted_(new QSortFilterProxyModel(this)),
      view_(new QTableView) {
  sorted_->setSourceModel(model_);
  sorted_->setSortRole(IdleGpuModel::SortRole);
  view_->setObjectName(QStringLiteral("idleGpus"));
  view_->setModel(sorted_);
  view_->setSortingEnabled(true);
  view_->sortByColumn(IdleGpuModel::GpuColumn, Qt::AscendingOrder);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view_->horizontalHeader()->setStretchLastSection(true);
  view_->verticalHeader()->hide();
  view_->setContextMenuPolicy(Qt::ActionsContextMenu);
  preempt_ = addReclaim(tr("Preempt job"), "preemptIdle", JobAction::Preempt);
  preempt_->setToolTip(
      tr("Send the selected GPUs' jobs back to the queue; work since their last checkpoint "
         "is lost"));
  cancel_ = addReclaim(tr("Cancel job"), "cancelIdle", JobAction::Cancel);
  cancel_->setToolTip(tr("End the selected GPUs' jobs"));
  // A double-click shows the GPU's job in the inspector.
  connect(view_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
    if (const JobId job = i.data(IdleGpuModel::JobIdRole).toULongLong(); job != kNoJob)
      emit jobActivated(job);
  });
  connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &IdleGpuPanel::updateActions);
  // Rows leave the list as GPUs get busy again: the actions follow the selection that is left.
  connect(sorted_, &QAbstractItemModel::rowsRemoved, this, &IdleGpuPanel::updateActions);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(buildRuleBar());
  layout->addWidget(view_, 1);
  confirm_ = [this](const QString& title, const QString& text) {
    return askWithMessageBox(this, title, text);
  };
  updateActions();
}

QAction* IdleGpuPanel::addReclaim(const QString& text, const char* name, JobAction action) {
  auto* a = new QAction(text, this);
  a->setObjectName(QLatin1String(name));
  connect(a, &QAction::triggered, this, [this, action] { reclaim(action); });
  view_->addAction(a);
  return a;
}

// "Idle below [5 %] for at least [30 min]" and the reclaim buttons, above the table.
QWidget* IdleGpuPanel::buildRuleBar() {
  auto* bar = new QWidget;
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(4, 2, 4, 2);
  threshold_ = new QSpinBox;
  threshold_->setObjectName(QStringLiteral("idleThreshold"));
  threshold_->setRange(1, 100);
  threshold_->setSuffix(tr(" %"));
  threshold_->setToolTip(tr("An allocated GPU counts as idle while its utilization is below this"));
  minimum_ = new QSpinBox;
  minimum_->setObjectName(QStringLiteral("idleMinimum"));
  minimum_->setRange(0, 7 * 24 * 60);
  minimum_->setSuffix(tr(" min"));
  minimum_->setToolTip(tr("List a GPU once it has been idle this long (engine time)"));
  const QSettings s;
  threshold_->setValue(
      s.value(kThresholdKey, static_cast<int>(std::lround(model_->threshold() * 100))).toInt());
  minimum_->setValue(s.value(kMinimumKey, static_cast<int>(model_->minimumIdle() / 60)).toInt());
  applyRule();
  for (QSpinBox* box : {threshold_, minimum_})
    connect(box, &QSpinBox::valueChanged, this, [this] {
      applyRule();
      QSettings settings;
      settings.setValue(kThresholdKey, threshold_->value());
      settings.setValue(kMinimumKey, minimum_->value());
    });
  row->addWidget(new QLabel(tr("Idle below")));
  row->addWidget(threshold_);
  row->addWidget(new QLabel(tr("for at least")));
  row->addWidget(minimum_);
  row->addStretch(1);
  for (QAction* a : {preempt_, cancel_}) {
    auto* button = new QToolButton;
    button->setDefaultAction(a);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    row->addWidget(button);
  }
  return bar;
}

void IdleGpuPanel::applyRule() {
  model_->setThreshold(threshold_->value() / 100.0);
  model_->setMinimumIdle(Seconds{minimum_->value()} * 60);
}

void IdleGpuPanel::updateActions() {
  const bool any = view_->selectionModel()->hasSelection();
  preempt_->setEnabled(any);
  cancel_->setEnabled(any);
}

std::vector<IdleGpuModel::IdleJob> IdleGpuPanel::selectedJobs() const {
  QList<int> rows;
  for (const QModelIndex& i : view_->selectionModel()->selectedRows())
    rows << sorted_->mapToSource(i).row();
  std::sort(rows.begin(), rows.end());  // the list's own order, whatever the view's sort
  return model_->idleJobs(rows);
}

QString IdleGpuPanel::confirmationText(JobAction action,
                                       const std::vector<IdleGpuModel::IdleJob>& jobs) {
  const bool preempt = action == JobAction::Preempt;
  const int n = static_cast<int>(jobs.size());
  QStringList lines;
  if (n == 1)
    lines << (preempt ? tr("Preempt this job holding idle GPUs?")
                      : tr("Cancel this job holding idle GPUs?"));
  else
    lines << (preempt ? tr("Preempt these %1 jobs holding idle GPUs?")
                      : tr("Cancel these %1 jobs holding idle GPUs?"))
                 .arg(n);
  lines << QString();
  const QLocale locale;
  for (const auto& j : jobs) {
    const QString hours = locale.toString(j.idleGpuHours, 'f', 2);
    const QString team = j.team.isEmpty() ? tr("no team") : j.team;
    lines << (j.gpus == 1 ? tr("Job %1 of team %2: %3 GPU-hours idle on 1 GPU")
                                .arg(QString::number(j.job), team, hours)
                          : tr("Job %1 of team %2: %3 GPU-hours idle on %4 GPUs")
                                .arg(QString::number(j.job), team, hours, QString::number(j.gpus)));
  }
  lines << QString();
  lines << (preempt ? tr("Preempted jobs go back to the queue and lose the work done since their "
                         "last checkpoint.")
                    : tr("Cancelled jobs end and do not come back."));
  return lines.join(QLatin1Char('\n'));
}

int IdleGpuPanel::reclaim(JobAction action) {
  const auto jobs = selectedJobs();
  if (jobs.empty()) return 0;
  const QString title =
      action == JobAction::Preempt ? tr("Preempt idle jobs") : tr("Cancel idle jobs");
  if (confirm_ && !confirm_(title, confirmationText(action, jobs))) return 0;
  for (const auto& j : jobs) emit actionRequested(j.job, action, QString());
  return static_cast<int>(jobs.size());
}

}  // namespace tessera::widgets
