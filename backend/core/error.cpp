#include "core/error.h"

#include "core/engine_text.h"

namespace tessera {

std::string SourceLocation::str() const {
  std::string out = file;
  if (line > 0) {
    out += (out.empty() ? "line " : ":") + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  if (!field.empty()) out += (out.empty() ? "" : ": ") + field;
  return out;
}

std::string Error::str() const {
  if (where.empty()) return message;
  return where.str() + ": " + message;
}

Text Error::sentence() const {
  Text what = text.empty() ? literal(message) : text;
  if (where.empty()) return what;
  return phrase(text::kLabelled, where.str(), std::move(what));
}

}  // namespace tessera
