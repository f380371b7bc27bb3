#include "node_admission_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "node_admission_model.h"

namespace tessera::widgets {

NodeAdmissionPanel::NodeAdmissionPanel(NodeAdmissionModel* model, QWidget* parent)
    : QWidget(parent), model_(model), summary_(new QLabel), view_(new QTableView) {
  setObjectName(QStringLiteral("admission"));
  summary_->setObjectName(QStringLiteral("admissionSummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);  // the command can be copied
  view_->setModel(model_);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setWordWrap(false);
  view_->verticalHeader()->hide();
  view_->horizontalHeader()->setStretchLastSection(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(summary_);
  layout->addWidget(view_, 1);
  connect(model_, &QAbstractItemModel::modelReset, this, &NodeAdmissionPanel::updateSummary);
  updateSummary();
}

QString NodeAdmissionPanel::summary() const {
  return summary_->text();
}

void NodeAdmissionPanel::updateSummary() {
  const int waiting = model_->awaitingAdmission();
  QString text = waiting == 0   ? tr("No node awaits admission.")
                 : waiting == 1 ? tr("1 node awaits admission.")
                                : tr("%1 nodes await admission.").arg(waiting);
  if (waiting > 0)
    text +=
        QLatin1Char(' ') + tr("Admit one with “tessera ctl node admit NODE” (an admin's token).");
  bool warned = false;
  for (int row = 0; row < model_->rowCount(); ++row)
    warned = warned || !model_->nodeAt(row).warnings.empty();
  if (warned) text += QLatin1Char(' ') + tr("The nodes' own reports have warnings (hover a row).");
  summary_->setText(text);
}

}  // namespace tessera::widgets
