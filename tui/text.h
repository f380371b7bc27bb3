#pragma once
// The terminal console's words, from the same translation files as the desktop console: its own
// strings under the context "Top" (marked Top::tr, which lupdate reads), the engine's sentences
// through displayText (context "tessera::text"). Everything is UTF-8 std::string from here on.
#include <QCoreApplication>
#include <QString>

#include <optional>
#include <string>

#include "core/ids.h"
#include "core/text.h"

namespace tessera::tui {

class Top {
  Q_DECLARE_TR_FUNCTIONS(Top)
};

inline std::string str(const QString& s) {
  return s.toStdString();
}
// An engine sentence in the operator's language.
std::string engineText(const Text& t);
// "2h05m", "45s", "3d4h": short durations for narrow columns.
std::string shortDuration(Seconds s);
// "87%", or "-" when unknown.
std::string percent(std::optional<double> fraction);

}  // namespace tessera::tui
