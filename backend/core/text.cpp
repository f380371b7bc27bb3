#include "core/text.h"

#include "core/engine_text.h"

namespace tessera {

Text Text::literal(std::string s) {
  Text t;
  t.node_ = std::make_shared<const Node>(Node{std::move(s), {}, true});
  return t;
}

Text Text::pattern(std::string pattern, std::vector<Text> args) {
  Text t;
  t.node_ = std::make_shared<const Node>(Node{std::move(pattern), std::move(args), false});
  return t;
}

const std::string& Text::patternText() const {
  static const std::string kEmpty;
  return node_ ? node_->pattern : kEmpty;
}

const std::vector<Text>& Text::args() const {
  static const std::vector<Text> kNone;
  return node_ ? node_->args : kNone;
}

bool Text::operator==(const Text& o) const {
  if (node_ == o.node_) return true;
  return isLiteral() == o.isLiteral() && patternText() == o.patternText() && args() == o.args();
}

std::string fillPattern(const std::string& pattern, const std::vector<std::string>& args) {
  std::string out;
  out.reserve(pattern.size());
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '%' && i + 1 < pattern.size() && pattern[i + 1] >= '1' && pattern[i + 1] <= '9') {
      const auto n = static_cast<size_t>(pattern[i + 1] - '1');
      if (n < args.size()) {
        out += args[n];
        ++i;
        continue;
      }
    }
    out += c;
  }
  return out;
}

Text listText(std::vector<Text> items, bool andLast) {
  if (items.empty()) return {};
  Text out = std::move(items[0]);
  for (size_t i = 1; i < items.size(); ++i)
    out = phrase(andLast && i + 1 == items.size() ? text::kLastPair : text::kPair, std::move(out),
                 std::move(items[i]));
  return out;
}

std::string Text::english() const {
  if (isLiteral()) return patternText();
  std::vector<std::string> filled;
  filled.reserve(args().size());
  for (const Text& a : args()) filled.push_back(a.english());
  return fillPattern(patternText(), filled);
}

}  // namespace tessera
