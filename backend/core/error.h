#pragma once
// An error a user can act on: what went wrong and where (file:line:column, field path).
#include <string>

#include "core/text.h"

namespace tessera {

struct SourceLocation {
  std::string file;   // empty when the input did not come from a file
  int line = 0;       // 1-based; 0 = unknown
  int column = 0;     // 1-based; 0 = unknown
  std::string field;  // dotted path inside the document, e.g. "nodes[3].gpus[2].layout"

  [[nodiscard]] bool empty() const { return file.empty() && line == 0 && field.empty(); }
  // "file:line:column: field" with the unknown parts left out.
  [[nodiscard]] std::string str() const;
};

struct Error {
  std::string message;
  SourceLocation where;
  // The message as a sentence the console translates, when the engine gave one (a refused
  // action); empty for errors that stay English (file parsers, the database).
  Text text{};

  // An error whose message is `text`'s English.
  static Error of(Text text, SourceLocation where = {}) {
    std::string english = text.english();
    return Error{std::move(english), std::move(where), std::move(text)};
  }

  // "where: message" when a location is known, else just the message.
  [[nodiscard]] std::string str() const;
};

}  // namespace tessera
