#include "core/text.h"

#include <unordered_map>

#include "core/engine_text.h"

namespace tessera {

Text::Node::Node(std::string o, const char* p, std::vector<Text> a, bool l)
    : owned(std::move(o)),
      pattern(p ? p : owned.c_str()),
      size(p ? std::char_traits<char>::length(p) : owned.size()),
      args(std::move(a)),
      literal(l) {}

Text Text::literal(std::string s) {
  Text t;
  t.node_ = std::make_shared<const Node>(std::move(s), nullptr, std::vector<Text>{}, true);
  return t;
}

Text Text::pattern(std::string pattern, std::vector<Text> args) {
  Text t;
  t.node_ = std::make_shared<const Node>(std::move(pattern), nullptr, std::move(args), false);
  return t;
}

Text Text::catalogued(const char* pattern, std::vector<Text> args) {
  Text t;
  t.node_ = std::make_shared<const Node>(std::string(), pattern, std::move(args), false);
  return t;
}

Text Text::catalogued(const char* pattern) {
  // Per thread, so no lock; a Text is immutable, so sharing one across threads is safe.
  thread_local std::unordered_map<const char*, Text> built;
  auto [it, fresh] = built.try_emplace(pattern);
  if (fresh) it->second = catalogued(pattern, {});
  return it->second;
}

std::string_view Text::patternText() const {
  if (!node_) return "";
  return {node_->pattern, node_->size};
}

const std::vector<Text>& Text::args() const {
  static const std::vector<Text> kNone;
  return node_ ? node_->args : kNone;
}

bool Text::operator==(const Text& o) const {
  if (node_ == o.node_) return true;
  return isLiteral() == o.isLiteral() && patternText() == o.patternText() && args() == o.args();
}

std::string fillPattern(std::string_view pattern, const std::vector<std::string>& args) {
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
Text pairs(std::vector<Text>& items, size_t from, size_t to, const char* join = text::kPair) {
  if (to - from == 1) return std::move(items[from]);
  const size_t mid = from + (to - from) / 2;
  return phrase(join, pairs(items, from, mid, join), pairs(items, mid, to, join));
}
}  // namespace

Text clauseList(std::vector<Text> items) {
  if (items.empty()) return {};
  return pairs(items, 0, items.size(), text::kClauses);
}

Text listText(std::vector<Text> items, bool andLast) {
  if (items.empty()) return {};
  if (!andLast || items.size() == 1) return pairs(items, 0, items.size());
  Text last = std::move(items.back());
  return phrase(text::kLastPair, pairs(items, 0, items.size() - 1), std::move(last));
}

std::string Text::english() const {
  if (isLiteral()) return std::string(patternText());
  std::vector<std::string> filled;
  filled.reserve(args().size());
  for (const Text& a : args()) filled.push_back(a.english());
  return fillPattern(patternText(), filled);
}

}  // namespace tessera
