// A node's holds (why it is out, per owner: operator, failure, GPU fault, MIG reconfiguration,
// executor) in the operator's words, for the heatmap's node tooltip and the Overview. On a real
// cluster a node can be out for Slurm (a drain Slurm reported) and for an operator at once; the
// owner says whose hold it is, so the operator knows which one clearing a drain will not end.
#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include "service/session.h"

namespace tessera::widgets {

class NodeHolds {
  Q_DECLARE_TR_FUNCTIONS(tessera::widgets::NodeHolds)

 public:
  // The owner as the operator knows it; `executor` names what runs the jobs ("slurm").
  [[nodiscard]] static QString ownerText(const std::string& owner, const std::string& executor);
  // "slurm: down (NHC: ib0 down)", one line per hold, oldest first; empty without holds.
  [[nodiscard]] static QStringList lines(const NodeView& node, const std::string& executor);
};

}  // namespace tessera::widgets
