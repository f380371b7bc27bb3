#pragma once
// A sentence the console can show in the operator's language. The engine builds it from an
// English template of core/engine_text.h, with %1..%9 filled by arguments that are texts
// themselves (a job id, a node name, a whole clause); it keeps English for logs, the CLI and the
// database (english()), and the console looks the template up in its translations and fills in
// the same arguments. A literal is text that is never translated: names, numbers, an operator's
// own words.
//
// Immutable and shared: copying one is a reference count, because the scheduling cycle hands the
// same refusal to every job of a shape.
#include <concepts>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

class Text {
 public:
  Text() = default;
  // Never translated.
  static Text literal(std::string s);
  // A template with its arguments, as read back from the wire or the database.
  static Text pattern(std::string pattern, std::vector<Text> args);
  // A template of core/engine_text.h (static storage: kept by pointer, not copied, because the
  // engine builds one per event) with its arguments; phrase() below is the short way.
  static Text catalogued(const char* pattern, std::vector<Text> args);
  // The same for a template without arguments, built once per thread and shared: the engine
  // hands the same few words ("placed", "finished", a pending reason) to thousands of events.
  static Text catalogued(const char* pattern);

  [[nodiscard]] bool empty() const { return !node_ || (node_->size == 0 && node_->args.empty()); }
  [[nodiscard]] bool isLiteral() const { return !node_ || node_->literal; }
  // The template (or the literal's characters); NUL-terminated.
  [[nodiscard]] std::string_view patternText() const;
  [[nodiscard]] const std::vector<Text>& args() const;
  // The template with each %N replaced by the English of argument N, in one pass: an argument
  // that itself contains "%2" is not expanded again.
  [[nodiscard]] std::string english() const;
  bool operator==(const Text& o) const;

 private:
  struct Node {
    Node(std::string owned, const char* pattern, std::vector<Text> args, bool literal);
    std::string owned;    // the characters when not a catalogue template
    const char* pattern;  // owned's, or the catalogue's
    size_t size;
    std::vector<Text> args;
    bool literal = true;
  };
  std::shared_ptr<const Node> node_;
};

inline Text literal(std::string s) {
  return Text::literal(std::move(s));
}
inline Text literal(const char* s) {
  return Text::literal(s);
}
template <std::integral I>
Text literal(I n) {
  return Text::literal(std::to_string(n));
}

namespace detail {
inline Text asArg(Text t) {
  return t;
}
inline Text asArg(std::string s) {
  return literal(std::move(s));
}
inline Text asArg(const char* s) {
  return literal(s);
}
template <std::integral I>
Text asArg(I n) {
  return literal(n);
}
}  // namespace detail

// A template of core/engine_text.h filled with arguments; strings and integers become literals.
template <typename... A>
Text phrase(const char* pattern, A&&... args) {
  if constexpr (sizeof...(A) == 0) {
    return Text::catalogued(pattern);
  } else {
    std::vector<Text> filled;
    filled.reserve(sizeof...(A));
    (filled.push_back(detail::asArg(std::forward<A>(args))), ...);
    return Text::catalogued(pattern, std::move(filled));
  }
}

// "a, b, c" (or with `andLast`, "a, b and c") built from list templates, so translations can use
// their own separators.
Text listText(std::vector<Text> items, bool andLast = false);
// "a; b; c": clauses joined with kClauses, nested the same balanced way.
Text clauseList(std::vector<Text> items);

// Fills %1..%9 of `pattern` with `args` in one pass; a %N with no argument stays as it is.
// english() uses it, and so does the console with a translated pattern and translated arguments.
std::string fillPattern(std::string_view pattern, const std::vector<std::string>& args);

}  // namespace tessera
