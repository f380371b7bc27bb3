#include "engine_text.h"

#include <QCoreApplication>

namespace tessera {

QString displayText(const Text& text) {
  if (text.isLiteral()) return QString::fromStdString(text.patternText());
  const QString pattern =
      QCoreApplication::translate(kEngineTextContext, text.patternText().c_str());
  std::vector<std::string> args;
  args.reserve(text.args().size());
  for (const Text& a : text.args()) args.push_back(displayText(a).toStdString());
  return QString::fromStdString(fillPattern(pattern.toStdString(), args));
}

}  // namespace tessera
