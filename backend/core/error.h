#pragma once
// An error a user can act on: what went wrong and where (file:line:column, field path).
#include <cstdint>
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

// What a refused request is about, so the API can answer with the right status (service/session.h
// ErrorKind): a wrong argument, a name that matches nothing, or a request the current state does
// not allow. The code that refuses knows which; nobody downstream guesses it from the words.
enum class Refusal : uint8_t { BadArgument, NotFound, WrongState };

struct Error {
  std::string message;
  SourceLocation where;
  // The message as a sentence the console translates, when the engine gave one (a refused
  // action); empty for errors that stay English (file parsers, the database).
  Text text{};
  Refusal refusal = Refusal::BadArgument;

  // An error whose message is `text`'s English.
  static Error of(Text text, SourceLocation where = {}, Refusal refusal = Refusal::BadArgument) {
    std::string english = text.english();
    return Error{std::move(english), std::move(where), std::move(text), refusal};
  }
  static Error notFound(Text text, SourceLocation where = {}) {
    return of(std::move(text), std::move(where), Refusal::NotFound);
  }
  static Error wrongState(Text text, SourceLocation where = {}) {
    return of(std::move(text), std::move(where), Refusal::WrongState);
  }

  // "where: message" when a location is known, else just the message.
  [[nodiscard]] std::string str() const;
  // str() as a Text: the sentence (after "where: " when a location is known), or the English
  // message as a literal when there is none.
  [[nodiscard]] Text sentence() const;
};

}  // namespace tessera
