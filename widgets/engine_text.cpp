#include "engine_text.h"

#include <QCoreApplication>

namespace tessera {

QString displayText(const Text& text) {
  const std::string_view p = text.patternText();
  if (text.isLiteral()) return QString::fromUtf8(p.data(), static_cast<qsizetype>(p.size()));
  // patternText() is NUL-terminated, as translate() needs.
  const QString pattern = QCoreApplication::translate(kEngineTextContext, p.data());
  std::vector<std::string> args;
  args.reserve(text.args().size());
  for (const Text& a : text.args()) args.push_back(displayText(a).toStdString());
  return QString::fromStdString(fillPattern(pattern.toStdString(), args));
}

}  // namespace tessera
