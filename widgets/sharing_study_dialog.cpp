#include "sharing_study_dialog.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>

#include "sharing_study_model.h"

namespace tessera::widgets {

SharingStudyDialog::SharingStudyDialog(std::shared_ptr<const Cluster> cluster, QWidget* parent)
    : QDialog(parent),
      cluster_(std::move(cluster)),
      model_(new SharingStudyModel(this)),
      chart_(new QChart),
      jobs_(new QSpinBox),
      rate_(new QDoubleSpinBox),
      seed_(new QSpinBox),
      run_(new QPushButton(tr("Run"))),
      status_(new QLabel),
      recommendation_(new QLabel),
      table_(new QTableView) {
  setWindowTitle(tr("Sharing study"));
  setObjectName(QStringLiteral("sharingStudyDialog"));
  jobs_->setRange(10, 100000);
  jobs_->setValue(500);
  rate_->setRange(1, 100000);
  rate_->setValue(60);
  seed_->setRange(0, 1 << 30);
  seed_->setValue(1);
  auto* form = new QFormLayout;
  form->addRow(tr("Synthetic jobs"), jobs_);
  form->addRow(tr("Arrivals per hour"), rate_);
  form->addRow(tr("Seed"), seed_);
  table_->setModel(model_);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  recommendation_->setWordWrap(true);
  recommendation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* view = new QChartView(chart_);
  view->setMinimumHeight(220);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  buttons->addButton(run_, QDialogButtonBox::ActionRole);
  connect(run_, &QPushButton::clicked, this, &SharingStudyDialog::run);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(table_);
  layout->addWidget(view);
  layout->addWidget(recommendation_);
  layout->addWidget(status_);
  layout->addWidget(buttons);
  resize(900, 640);
}

SharingStudyDialog::~SharingStudyDialog() {
  if (worker_.joinable()) worker_.join();
}

void SharingStudyDialog::setWorkload(int jobs, double ratePerHour, int seed) {
  jobs_->setValue(jobs);
  rate_->setValue(ratePerHour);
  seed_->setValue(seed);
}

QString SharingStudyDialog::recommendation() const {
  return recommendation_->text();
}

void SharingStudyDialog::run() {
  if (running_ || !cluster_) return;
  if (worker_.joinable()) worker_.join();  // the last study's thread, already done
  running_ = true;
  run_->setEnabled(false);
  status_->setText(tr("Running the study…"));
  SyntheticConfig sc = sharingStudySyntheticDefaults();
  sc.jobs = static_cast<size_t>(jobs_->value());
  sc.arrivalsPerHour = rate_->value();
  sc.seed = static_cast<uint64_t>(seed_->value());
  // The worker owns copies of its inputs; its result is delivered queued to this dialog (and
  // dropped with it: the destructor joins first).
  worker_ = std::thread([this, cluster = cluster_, sc] {
    Expected<SharingStudy> result = Error{"no workload", {}};
    if (auto trace = synthesizeForSharingStudy(*cluster, sc)) {
      SharingStudyConfig config;
      config.sim.seed = sc.seed;
      result = runSharingStudy(*cluster, *trace, config);
    } else {
      result = trace.error();
    }
    QMetaObject::invokeMethod(
        this, [this, result] { showResult(result); }, Qt::QueuedConnection);
  });
}

void SharingStudyDialog::showResult(const Expected<SharingStudy>& result) {
  running_ = false;
  run_->setEnabled(true);
  if (!result) {
    status_->setText(tr("The study failed: %1").arg(QString::fromStdString(result.error().str())));
  } else {
    status_->clear();
    model_->setStudy(*result);
    recommendation_->setText(QString::fromStdString(result->recommendation));
    fillChart(*result);
  }
  emit studyDone();
}

// One bar per mode in each group: GPUs needed, GPUs stranded, jobs co-located.
void SharingStudyDialog::fillChart(const SharingStudy& s) {
  chart_->removeAllSeries();
  for (QAbstractAxis* axis : chart_->axes()) chart_->removeAxis(axis);
  auto* series = new QBarSeries;
  for (const auto& f : s.modes) {
    if (!f.skipped.empty()) continue;
    auto* set = new QBarSet(QString::fromUtf8(sharingStudyModeName(f.mode)));
    *set << (f.gpusNeeded ? *f.gpusNeeded : 0) << f.strandedGpus
         << static_cast<double>(f.coLocatedJobs);
    series->append(set);
  }
  chart_->addSeries(series);
  auto* groups = new QBarCategoryAxis;
  groups->append({tr("GPUs needed"), tr("Stranded GPUs"), tr("Co-located jobs")});
  chart_->addAxis(groups, Qt::AlignBottom);
  series->attachAxis(groups);
  auto* values = new QValueAxis;
  chart_->addAxis(values, Qt::AlignLeft);
  series->attachAxis(values);
  chart_->setTitle(tr("Sharing study"));
}

}  // namespace tessera::widgets
