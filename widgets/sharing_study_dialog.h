#pragma once
// "Sharing study…": which way to share the console's cluster's GPUs (sim/sharing_study.h). The
// operator picks the synthetic workload's size, rate and seed; Run starts the study on a worker
// thread (the GUI stays live), and its result fills the side-by-side table, a bar chart and the
// recommendation. The widgets only adapt the study's value.
#include <QDialog>
#include <memory>
#include <thread>

#include "sim/sharing_study.h"

class QChart;
class QLabel;
class QPushButton;
class QSpinBox;
class QDoubleSpinBox;
class QTableView;

namespace tessera::widgets {

class SharingStudyModel;

class SharingStudyDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SharingStudyDialog(std::shared_ptr<const Cluster> cluster, QWidget* parent = nullptr);
  ~SharingStudyDialog() override;  // waits for a study still running

  // The form's settings (also for tests).
  void setWorkload(int jobs, double ratePerHour, int seed);
  // Starts the study; ignored while one runs.
  void run();
  [[nodiscard]] bool running() const { return running_; }
  [[nodiscard]] SharingStudyModel* model() const { return model_; }
  [[nodiscard]] QChart* chart() const { return chart_; }
  [[nodiscard]] QString recommendation() const;

 signals:
  void studyDone();  // the table, chart and recommendation show the new study (or its error)

 private:
  void showResult(const Expected<SharingStudy>& result);
  void fillChart(const SharingStudy& s);

  std::shared_ptr<const Cluster> cluster_;
  SharingStudyModel* model_;
  QChart* chart_;
  QSpinBox* jobs_;
  QDoubleSpinBox* rate_;
  QSpinBox* seed_;
  QPushButton* run_;
  QLabel* status_;
  QLabel* recommendation_;
  QTableView* table_;
  std::thread worker_;
  bool running_ = false;
};

}  // namespace tessera::widgets
