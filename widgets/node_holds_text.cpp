// Node holds in words (see node_holds_text.h).
#include "node_holds_text.h"

#include "engine_text.h"

namespace tessera::widgets {

QString NodeHolds::ownerText(const std::string& owner, const std::string& executor) {
  if (owner == "operator") return tr("operator");
  if (owner == "failure") return tr("node failure");
  if (owner == "gpu-fault") return tr("GPU fault");
  if (owner == "mig-reconfigure") return tr("MIG reconfiguration");
  if (owner == "inventory") return tr("node inventory");
  // The executor's hold is the cluster's own (a Slurm drain): name the cluster, not the role.
  if (owner == "executor" && !executor.empty() && executor != "none")
    return QString::fromStdString(executor);
  return QString::fromStdString(owner);
}

QStringList NodeHolds::lines(const NodeView& node, const std::string& executor) {
  QStringList lines;
  for (const NodeHoldView& h : node.holds) {
    QString line =
        tr("%1: %2").arg(ownerText(h.owner, executor), h.down ? tr("down") : tr("draining"));
    if (!h.gpu.empty()) line += QStringLiteral(" [%1]").arg(QString::fromStdString(h.gpu));
    if (!h.reason.empty()) line += QStringLiteral(" (%1)").arg(displayText(h.reason));
    lines << line;
  }
  return lines;
}

}  // namespace tessera::widgets
