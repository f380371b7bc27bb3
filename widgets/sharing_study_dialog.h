#pragma once
// "Sharing study…": which way to share the console's cluster's GPUs (sim/sharing_study.h). The
// operator picks the workload (the study's synthetic one: size, rate and seed; or a trace file,
// read as `tessera simulate sharing-study --workload FILE [--format F]` reads it), the wait
// targets and time-slice slots (as --wait-target and --slots); Run starts the study on a worker
// thread (the GUI stays live), Stop (or closing the dialog) cancels it, and its result fills the
// side-by-side table, a bar chart and the recommendation. The widgets only adapt the study's
// value.
#include <QDialog>
#include <atomic>
#include <memory>
#include <thread>

#include "sim/sharing_study.h"

class QChart;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QDoubleSpinBox;
class QTableView;

namespace tessera::widgets {

class SharingStudyModel;

class SharingStudyDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SharingStudyDialog(std::shared_ptr<const Cluster> cluster, QWidget* parent = nullptr);
  ~SharingStudyDialog() override;  // cancels a study still running and waits for its thread

  // The form's settings (also for tests). setWorkload chooses the synthetic workload,
  // setTraceFile the trace (`format` as --format: openb, helios, philly, swf, jobs; empty =
  // detect). `waitTargets` as --wait-target, several separated by spaces or commas.
  void setWorkload(int jobs, double ratePerHour, int seed);
  void setTraceFile(const QString& path, const QString& format = {});
  void setTargets(const QString& waitTargets, int timeSliceSlots);
  // Starts the study; ignored while one runs, and refused (the reason beside the field) while a
  // field is bad.
  void run();
  // Asks the running study to stop; it ends with studyDone and the status "stopped".
  void cancel();
  [[nodiscard]] bool running() const { return running_; }
  [[nodiscard]] SharingStudyModel* model() const { return model_; }
  [[nodiscard]] QChart* chart() const { return chart_; }
  [[nodiscard]] QString recommendation() const;
  [[nodiscard]] QString status() const;
  // What is wrong with the trace (a file that does not load) or the wait targets; empty if fine.
  [[nodiscard]] QString traceError() const;
  [[nodiscard]] QString targetsError() const;
  [[nodiscard]] QPushButton* runButton() const { return run_; }
  [[nodiscard]] QPushButton* stopButton() const { return stop_; }

 signals:
  void studyDone();  // the table, chart and recommendation show the new study (or its error)

 public slots:
  void reject() override;  // closing cancels a running study and waits for its thread

 private:
  void showResult(const Expected<SharingStudy>& result, bool traceFailed);
  void fillChart(const SharingStudy& s);
  void updateWorkloadFields();
  void chooseTraceFile();
  void stopWorker();

  std::shared_ptr<const Cluster> cluster_;
  SharingStudyModel* model_;
  QChart* chart_;
  QRadioButton* synthetic_;
  QRadioButton* traceChoice_;
  QSpinBox* jobs_;
  QDoubleSpinBox* rate_;
  QSpinBox* seed_;
  QLineEdit* tracePath_;
  QPushButton* browse_;
  QComboBox* format_;
  QLabel* traceError_;
  QLineEdit* targets_;
  QLabel* targetsError_;
  QSpinBox* slots_;
  QPushButton* run_;
  QPushButton* stop_;
  QLabel* status_;
  QLabel* recommendation_;
  QTableView* table_;
  std::thread worker_;
  std::shared_ptr<std::atomic<bool>> cancelled_;  // the running study's, shared with its thread
  bool running_ = false;
};

}  // namespace tessera::widgets
