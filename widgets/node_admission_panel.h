#pragma once
// The console's "Nodes" panel: a line that says how many nodes wait for an operator's admission
// and how to admit them, over the NodeAdmissionModel's table (a row's tooltip has the node's
// admit command and every warning). Admission itself stays an admin's `tessera ctl node admit`:
// the console's session may hold a token without that right.
#include <QWidget>

class QLabel;
class QTableView;

namespace tessera::widgets {

class NodeAdmissionModel;

class NodeAdmissionPanel : public QWidget {
  Q_OBJECT
 public:
  // Shows `model` (not owned).
  explicit NodeAdmissionPanel(NodeAdmissionModel* model, QWidget* parent = nullptr);

  [[nodiscard]] QTableView* view() const { return view_; }
  [[nodiscard]] QString summary() const;

 private:
  void updateSummary();

  NodeAdmissionModel* model_;
  QLabel* summary_;
  QTableView* view_;
};

}  // namespace tessera::widgets
