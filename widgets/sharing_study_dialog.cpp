#include "sharing_study_dialog.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QButtonGroup>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>

#include "engine_text.h"
#include "field_error.h"
#include "scheduler/command_yaml.h"
#include "sharing_study_model.h"
#include "sim/trace_file.h"

namespace tessera::widgets {

SharingStudyDialog::SharingStudyDialog(std::shared_ptr<const Cluster> cluster, QWidget* parent)
    : QDialog(parent),
      cluster_(std::move(cluster)),
      model_(new SharingStudyModel(this)),
      chart_(new QChart),
      synthetic_(new QRadioButton(tr("Synthetic"))),
      traceChoice_(new QRadioButton(tr("Trace file"))),
      jobs_(new QSpinBox),
      rate_(new QDoubleSpinBox),
      seed_(new QSpinBox),
      tracePath_(new QLineEdit),
      browse_(new QPushButton(tr("Browse…"))),
      format_(new QComboBox),
      traceError_(fieldErrorLabel("traceError")),
      targets_(new QLineEdit),
      targetsError_(fieldErrorLabel("targetsError")),
      slots_(new QSpinBox),
      run_(new QPushButton(tr("Run"))),
      stop_(new QPushButton(tr("Stop"))),
      status_(new QLabel),
      recommendation_(new QLabel),
      table_(new QTableView) {
  setWindowTitle(tr("Sharing study"));
  setObjectName(QStringLiteral("sharingStudyDialog"));
  auto* choice = new QButtonGroup(this);
  choice->addButton(synthetic_);
  choice->addButton(traceChoice_);
  synthetic_->setChecked(true);
  auto* workload = new QHBoxLayout;
  workload->addWidget(synthetic_);
  workload->addWidget(traceChoice_);
  workload->addStretch();
  jobs_->setRange(10, 100000);
  jobs_->setValue(500);
  rate_->setRange(1, 100000);
  rate_->setValue(60);
  seed_->setRange(0, 1 << 30);
  seed_->setValue(1);
  tracePath_->setPlaceholderText(tr("A trace: openb, Helios, Philly, SWF or a Tessera job list"));
  format_->addItem(tr("Detect from the file"), QString());
  for (TraceFormat f : {TraceFormat::Openb, TraceFormat::Helios, TraceFormat::Philly,
                        TraceFormat::Swf, TraceFormat::JobList})
    format_->addItem(QString::fromUtf8(traceFormatName(f)), QString::fromUtf8(traceFormatName(f)));
  auto* trace = new QHBoxLayout;
  trace->addWidget(tracePath_, 1);
  trace->addWidget(browse_);
  trace->addWidget(format_);
  QStringList defaults;
  for (const WaitTarget& t : defaultWaitTargets())
    defaults << QStringLiteral("%1=%2").arg(QString::fromUtf8(workloadClassName(t.workloadClass)),
                                            QString::fromStdString(formatDuration(t.p95)));
  targets_->setText(defaults.join(QLatin1Char(' ')));
  targets_->setToolTip(
      tr("p95 queue wait per workload class, like inference=5m, or 10m for every class; several "
         "separated by spaces"));
  slots_->setRange(2, 64);  // as --slots
  slots_->setValue(SharingStudyConfig{}.timeSliceSlots);
  auto* form = new QFormLayout;
  form->addRow(tr("Workload"), workload);
  form->addRow(tr("Synthetic jobs"), jobs_);
  form->addRow(tr("Arrivals per hour"), rate_);
  form->addRow(tr("Trace"), trace);
  form->addRow(QString(), traceError_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(tr("Wait targets (p95)"), targets_);
  form->addRow(QString(), targetsError_);
  form->addRow(tr("Slots per time-sliced GPU"), slots_);
  table_->setModel(model_);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  recommendation_->setWordWrap(true);
  recommendation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* view = new QChartView(chart_);
  view->setMinimumHeight(220);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  buttons->addButton(run_, QDialogButtonBox::ActionRole);
  buttons->addButton(stop_, QDialogButtonBox::ActionRole);
  stop_->setEnabled(false);
  connect(run_, &QPushButton::clicked, this, &SharingStudyDialog::run);
  connect(stop_, &QPushButton::clicked, this, &SharingStudyDialog::cancel);
  connect(browse_, &QPushButton::clicked, this, &SharingStudyDialog::chooseTraceFile);
  connect(synthetic_, &QRadioButton::toggled, this, &SharingStudyDialog::updateWorkloadFields);
  connect(buttons, &QDialogButtonBox::rejected, this, &SharingStudyDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(table_);
  layout->addWidget(view);
  layout->addWidget(recommendation_);
  layout->addWidget(status_);
  layout->addWidget(buttons);
  updateWorkloadFields();
  resize(900, 720);
}

SharingStudyDialog::~SharingStudyDialog() {
  stopWorker();
}

// Cancels the study and waits for its thread: it stops at its next sample step.
void SharingStudyDialog::stopWorker() {
  if (cancelled_) *cancelled_ = true;
  if (worker_.joinable()) worker_.join();
}

void SharingStudyDialog::reject() {
  stopWorker();  // its result, queued, still arrives: the status says the study stopped
  QDialog::reject();
}

void SharingStudyDialog::cancel() {
  if (!running_ || !cancelled_) return;
  *cancelled_ = true;
  stop_->setEnabled(false);
  status_->setText(tr("Stopping the study…"));
}

void SharingStudyDialog::setWorkload(int jobs, double ratePerHour, int seed) {
  synthetic_->setChecked(true);
  jobs_->setValue(jobs);
  rate_->setValue(ratePerHour);
  seed_->setValue(seed);
}

void SharingStudyDialog::setTraceFile(const QString& path, const QString& format) {
  traceChoice_->setChecked(true);
  tracePath_->setText(path);
  const int i = format_->findData(format);
  format_->setCurrentIndex(i < 0 ? 0 : i);
}

void SharingStudyDialog::setTargets(const QString& waitTargets, int timeSliceSlots) {
  targets_->setText(waitTargets);
  slots_->setValue(timeSliceSlots);
}

void SharingStudyDialog::updateWorkloadFields() {
  const bool synthetic = synthetic_->isChecked();
  jobs_->setEnabled(synthetic);
  rate_->setEnabled(synthetic);
  tracePath_->setEnabled(!synthetic);
  browse_->setEnabled(!synthetic);
  format_->setEnabled(!synthetic);
  if (synthetic) showFieldError(traceError_, {});
}

void SharingStudyDialog::chooseTraceFile() {
  const QString file = QFileDialog::getOpenFileName(this, tr("Trace file"), tracePath_->text());
  if (!file.isEmpty()) tracePath_->setText(file);
}

QString SharingStudyDialog::recommendation() const {
  return recommendation_->text();
}

QString SharingStudyDialog::status() const {
  return status_->text();
}

QString SharingStudyDialog::traceError() const {
  return traceError_->text();
}

QString SharingStudyDialog::targetsError() const {
  return targetsError_->text();
}

void SharingStudyDialog::run() {
  if (running_ || !cluster_) return;
  SharingStudyConfig config;
  // The targets as --wait-target takes them (one per option there, separated here); none given
  // means the defaults, as there.
  std::vector<std::string> texts;
  for (const QString& t :
       targets_->text().split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts))
    texts.push_back(t.toStdString());
  if (!texts.empty()) {
    const auto targets = parseWaitTargets(texts);
    showFieldError(targetsError_,
                   targets ? QString() : QString::fromStdString(targets.error().str()));
    if (!targets) return;
    config.targets = *targets;
  } else {
    showFieldError(targetsError_, {});
  }
  const bool fromTrace = traceChoice_->isChecked();
  const std::string path = tracePath_->text().trimmed().toStdString();
  const std::string format = format_->currentData().toString().toStdString();
  showFieldError(traceError_, fromTrace && path.empty() ? tr("Choose a trace file.") : QString());
  if (fromTrace && path.empty()) return;
  if (worker_.joinable()) worker_.join();  // the last study's thread, already done
  config.timeSliceSlots = slots_->value();
  config.sim.seed = static_cast<uint64_t>(seed_->value());
  cancelled_ = std::make_shared<std::atomic<bool>>(false);
  config.cancelled = [flag = cancelled_] { return flag->load(); };
  SyntheticConfig sc = sharingStudySyntheticDefaults();
  sc.jobs = static_cast<size_t>(jobs_->value());
  sc.arrivalsPerHour = rate_->value();
  sc.seed = config.sim.seed;
  running_ = true;
  run_->setEnabled(false);
  stop_->setEnabled(true);
  status_->setText(tr("Running the study…"));
  // The worker owns copies of its inputs; its result is delivered queued to this dialog (and
  // dropped with it: the destructor joins first). The trace is read there too (it may be large),
  // by the CLI's reader.
  worker_ = std::thread(
      [this, cluster = cluster_, sc, fromTrace, path, format, config = std::move(config)] {
        Expected<Trace> trace =
            fromTrace ? loadTraceFile(path, format) : synthesizeForSharingStudy(*cluster, sc);
        Expected<SharingStudy> result = trace ? runSharingStudy(*cluster, *trace, config)
                                              : Expected<SharingStudy>(trace.error());
        const bool traceFailed = fromTrace && !trace;
        QMetaObject::invokeMethod(
            this, [this, result, traceFailed] { showResult(result, traceFailed); },
            Qt::QueuedConnection);
      });
}

void SharingStudyDialog::showResult(const Expected<SharingStudy>& result, bool traceFailed) {
  running_ = false;
  run_->setEnabled(true);
  stop_->setEnabled(false);
  const bool stopped = cancelled_ && cancelled_->load();
  cancelled_.reset();
  if (traceFailed) {
    showFieldError(traceError_, QString::fromStdString(result.error().str()));
    status_->setText(tr("The trace could not be read."));
  } else if (!result) {
    status_->setText(
        stopped ? tr("The study was stopped.")
                : tr("The study failed: %1").arg(QString::fromStdString(result.error().str())));
  } else {
    status_->clear();
    model_->setStudy(*result);
    // The engine's sentences in the console's language (English: the CLI's paragraph).
    QString paragraph;
    for (const Text& sentence : result->recommendationSentences)
      paragraph = paragraph.isEmpty()
                      ? displayText(sentence)
                      : tr("%1 %2", "one sentence of the recommendation after another")
                            .arg(paragraph, displayText(sentence));
    recommendation_->setText(paragraph);
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
