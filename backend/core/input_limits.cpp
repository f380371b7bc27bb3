#include "core/input_limits.h"

#include <algorithm>

#include "core/engine_text.h"
#include "core/strings.h"

namespace tessera {

size_t utf8Length(std::string_view s) {
  // Continuation bytes are 10xxxxxx: every other byte starts a code point.
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0u) != 0x80u; }));
}

std::optional<Text> textProblem(std::string_view s, size_t maxChars) {
  if (!isValidUtf8(s)) return phrase(text::kTextNotUtf8);
  // C0 controls and DEL would break the tables, logs and CSV files the text ends up in.
  const auto control = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20u || u == 0x7Fu;
  };
  if (std::any_of(s.begin(), s.end(), control)) return phrase(text::kTextControl);
  if (const size_t n = utf8Length(s); n > maxChars) return phrase(text::kTextTooLong, n, maxChars);
  return std::nullopt;
}

Status checkTextField(std::string_view s, size_t maxChars, const std::string& field) {
  if (auto problem = textProblem(s, maxChars))
    return Error::of(std::move(*problem), SourceLocation{"", 0, 0, field});
  return okStatus();
}

Status checkProgramField(std::string_view s, size_t maxBytes, const std::string& field) {
  const SourceLocation where{"", 0, 0, field};
  if (!isValidUtf8(s)) return Error::of(phrase(text::kTextNotUtf8), where);
  const auto control = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20u && c != '\t' && c != '\n' && c != '\r') || u == 0x7Fu;
  };
  if (std::any_of(s.begin(), s.end(), control)) return Error::of(phrase(text::kTextControl), where);
  if (s.size() > maxBytes) return Error::of(phrase(text::kTextTooLong, s.size(), maxBytes), where);
  return okStatus();
}

Status checkNameList(const std::vector<std::string>& names, const std::string& field) {
  if (names.size() > kMaxListItems)
    return Error::of(phrase(text::kTooManyItems, names.size(), kMaxListItems),
                     SourceLocation{"", 0, 0, field});
  for (size_t i = 0; i < names.size(); ++i)
    TESSERA_CHECK(checkTextField(names[i], kMaxNameChars, field + "[" + std::to_string(i) + "]"));
  return okStatus();
}

}  // namespace tessera
