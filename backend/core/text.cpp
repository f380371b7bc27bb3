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

namespace {
// Items [from, to) as a balanced tree of pairs: a list of n items nests log2(n) deep, not n, so a
// long one stays within the depth a client reads back (rpc::kMaxTextDepth).
Text pairs(std::vector<Text>& items, size_t from, size_t to) {
  if (to - from == 1) return std::move(items[from]);
  const size_t mid = from + (to - from) / 2;
  return phrase(text::kPair, pairs(items, from, mid), pairs(items, mid, to));
}
}  // namespace

Text listText(std::vector<Text> items, bool andLast) {
  if (items.empty()) return {};
  if (!andLast || items.size() == 1) return pairs(items, 0, items.size());
  Text last = std::move(items.back());
  return phrase(text::kLastPair, pairs(items, 0, items.size() - 1), std::move(last));
}

std::string Text::english() const {
  if (isLiteral()) return patternText();
  std::vector<std::string> filled;
  filled.reserve(args().size());
  for (const Text& a : args()) filled.push_back(a.english());
  return fillPattern(patternText(), filled);
}

}  // namespace tessera
