// Token file parsing, constant-time token lookup, token generation, the "authorization" header and
// the per-identity token-bucket rate limiter (see auth.h for the file format).
#include "rpc/auth.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <set>
#include <system_error>

#include "core/strings.h"

namespace tessera {

namespace {

// A token file lists a handful of identities; anything this large is the wrong file.
constexpr off_t kMaxTokenFileBytes = 1 << 20;
constexpr size_t kMaxNameLength = 64;

// ---- located YAML errors -------------------------------------------------------------------

SourceLocation locate(const YAML::Node& node, const std::string& file, const std::string& field) {
  SourceLocation loc{file, 0, 0, field};
  if (node.IsDefined() && node.Mark().line >= 0) {
    loc.line = node.Mark().line + 1;
    loc.column = node.Mark().column + 1;
  }
  return loc;
}

Error errorAt(const YAML::Node& node, const std::string& file, const std::string& field,
              const std::string& message) {
  return Error{message, locate(node, file, field)};
}

Expected<YAML::Node> loadYaml(std::string_view text, const std::string& file) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    SourceLocation loc{file,
                       e.mark.line >= 0 ? e.mark.line + 1 : 0,
                       e.mark.column >= 0 ? e.mark.column + 1 : 0,
                       {}};
    return Error{"YAML syntax error: " + e.msg, loc};
  }
}

std::string fieldPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

// yaml-cpp keeps repeated keys and lookups return the first, so a repeat would be silently
// ignored; unknown keys are refused so that a misspelt field is not silently ignored either.
Status checkKeys(const YAML::Node& map, const std::set<std::string>& allowed,
                 const std::string& path, const std::string& file) {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    const std::string field = fieldPath(path, key);
    if (!seen.insert(key).second)
      return errorAt(it->first, file, field, "duplicate key '" + key + "'");
    if (allowed.count(key)) continue;
    std::string hint;
    if (key == "token" || key == "secret")
      hint = "; tokens are never stored in clear, give their sha256 instead";
    return errorAt(it->first, file, field,
                   "unknown field '" + key + "' (allowed: " +
                       join(std::vector<std::string>(allowed.begin(), allowed.end()), ", ") + ")" +
                       hint);
  }
  for (const auto& key : allowed)
    if (!map[key]) return errorAt(map, file, path, "missing required field '" + key + "'");
  return okStatus();
}

// yaml-cpp marks an empty value ("name:") at the start of whatever follows it, often the next
// line; its key is where the reader should look.
YAML::Node valueOrKey(const YAML::Node& map, const std::string& key) {
  if (!map[key].IsNull()) return map[key];
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.Scalar() == key) return it->first;
  return map[key];
}

Expected<std::string> scalarAt(const YAML::Node& map, const std::string& key,
                               const std::string& path, const std::string& file) {
  const YAML::Node node = map[key];
  if (!node.IsScalar() || node.Scalar().empty())
    return errorAt(valueOrKey(map, key), file, fieldPath(path, key),
                   "expected a non-empty text value");
  return node.Scalar();
}

// ---- entry fields --------------------------------------------------------------------------

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '@' || c == '+' || c == '-';
}

// Names go verbatim into the audit log: a restricted alphabet keeps log lines unambiguous.
bool isValidName(std::string_view name) {
  return !name.empty() && name.size() <= kMaxNameLength &&
         std::all_of(name.begin(), name.end(), isNameChar);
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Lowercase only, as the format says: one spelling per hash keeps duplicate detection and diffs
// of the file simple.
bool decodeHash(std::string_view hex, unsigned char* out, size_t bytes) {
  if (hex.size() != 2 * bytes) return false;
  for (size_t i = 0; i < bytes; ++i) {
    const int hi = hexDigit(hex[2 * i]);
    const int lo = hexDigit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return true;
}

std::string hashProblem(std::string_view hex) {
  const std::string expected = "expected the SHA-256 of the token as 64 lowercase hex characters";
  if (hex.size() != 64)
    return "malformed hash: " + expected + ", got " + std::to_string(hex.size()) + " characters";
  return "malformed hash: " + expected + ", got other characters";
}

struct ParsedEntry {
  Identity identity;
  std::string hashHex;
  std::array<unsigned char, SHA256_DIGEST_LENGTH> hash{};
};

Expected<ParsedEntry> parseEntry(const YAML::Node& node, const std::string& path,
                                 const std::string& file) {
  if (!node.IsMap())
    return errorAt(node, file, path, "expected an entry with name, role and sha256");
  TESSERA_CHECK(checkKeys(node, {"name", "role", "sha256"}, path, file));
  ParsedEntry e;
  TESSERA_TRY(name, scalarAt(node, "name", path, file));
  if (!isValidName(name))
    return errorAt(node["name"], file, fieldPath(path, "name"),
                   "invalid name '" + name + "': use 1-64 characters of A-Z a-z 0-9 . _ @ + -");
  TESSERA_TRY(roleText, scalarAt(node, "role", path, file));
  const auto role = parseRole(roleText);
  if (!role)
    return errorAt(node["role"], file, fieldPath(path, "role"),
                   "unknown role '" + roleText + "' (allowed: viewer, operator, admin, agent)");
  TESSERA_TRY(hash, scalarAt(node, "sha256", path, file));
  if (!decodeHash(hash, e.hash.data(), e.hash.size()))
    return errorAt(node["sha256"], file, fieldPath(path, "sha256"), hashProblem(hash));
  // Catches a hash taken of an unset shell variable; such a token could never be presented.
  if (hash == sha256Hex(""))
    return errorAt(node["sha256"], file, fieldPath(path, "sha256"),
                   "this is the hash of the empty token");
  e.identity = {name, *role};
  e.hashHex = hash;
  return e;
}

// Records that `key` appears at `node`; an error naming the earlier line when it appeared before.
Status firstSeen(std::map<std::string, int>& seen, const std::string& key, const YAML::Node& node,
                 const std::string& file, const std::string& field, const std::string& message) {
  const SourceLocation here = locate(node, file, field);
  const auto [it, added] = seen.emplace(key, here.line);
  if (added) return okStatus();
  const int earlier = it->second;
  return Error{message + (earlier > 0 ? " (also at line " + std::to_string(earlier) + ")" : ""),
               here};
}

// ---- files ---------------------------------------------------------------------------------

std::string errnoText(int err) {
  return std::generic_category().message(err);
}

// POSIX rather than iostreams so that the error says why (permission denied, is a directory).
Expected<std::string> readSmallFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot read token file: " + errnoText(errno), {path, 0, 0, {}}};
  std::string out;
  struct stat st {};
  std::string problem;
  if (::fstat(fd, &st) != 0)
    problem = errnoText(errno);
  else if (!S_ISREG(st.st_mode))
    problem = "not a regular file";
  else if (st.st_size > kMaxTokenFileBytes)
    problem = "larger than 1 MiB";
  char buf[8192];
  while (problem.empty()) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      problem = errnoText(errno);
    else
      out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!problem.empty()) return Error{"cannot read token file: " + problem, {path, 0, 0, {}}};
  return out;
}

bool digest(std::string_view data, unsigned char* out) {
  return SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out) != nullptr;
}

std::string base64Url(const unsigned char* data, size_t size) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < size; ++i) {
    acc = (acc << 8) | data[i];
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 0x3f];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 0x3f];
  return out;
}

bool isToken68Char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
}

// RFC 6750 b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
bool isToken68(std::string_view s) {
  const auto bodyEnd = std::find_if_not(s.begin(), s.end(), isToken68Char);
  return bodyEnd != s.begin() && std::all_of(bodyEnd, s.end(), [](char c) { return c == '='; });
}

std::string_view trimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

// ---- roles ---------------------------------------------------------------------------------

const char* roleName(Role role) {
  switch (role) {
    case Role::Viewer:
      return "viewer";
    case Role::Operator:
      return "operator";
    case Role::Admin:
      return "admin";
    case Role::Agent:
      return "agent";
  }
  return "viewer";
}

std::optional<Role> parseRole(std::string_view text) {
  const std::string lower = toLower(text);
  for (Role r : {Role::Viewer, Role::Operator, Role::Admin, Role::Agent})
    if (lower == roleName(r)) return r;
  return std::nullopt;
}

// ---- token book ----------------------------------------------------------------------------

Expected<TokenBook> TokenBook::load(const std::string& path) {
  TESSERA_TRY(text, readSmallFile(path));
  return parse(text, path);
}

Expected<TokenBook> TokenBook::parse(std::string_view yaml, const std::string& fileName) {
  TESSERA_TRY(root, loadYaml(yaml, fileName));
  if (!root.IsMap()) return errorAt(root, fileName, {}, "expected a map with the key 'tokens'");
  TESSERA_CHECK(checkKeys(root, {"tokens"}, {}, fileName));
  const YAML::Node list = root["tokens"];
  if (list.IsNull() || (list.IsSequence() && list.size() == 0))
    return errorAt(valueOrKey(root, "tokens"), fileName, "tokens",
                   "the token list is empty: no one could connect");
  if (!list.IsSequence()) return errorAt(list, fileName, "tokens", "expected a list of tokens");

  TokenBook book;
  std::map<std::string, int> nameLines;
  std::map<std::string, int> hashLines;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = "tokens[" + std::to_string(i) + "]";
    const YAML::Node node = list[i];
    TESSERA_TRY(e, parseEntry(node, path, fileName));
    TESSERA_CHECK(firstSeen(nameLines, e.identity.name, node["name"], fileName, path + ".name",
                            "duplicate name '" + e.identity.name + "'"));
    TESSERA_CHECK(firstSeen(hashLines, e.hashHex, node["sha256"], fileName, path + ".sha256",
                            "duplicate hash: two identities would share one token"));
    book.entries_.push_back({std::move(e.identity), e.hash});
  }
  return book;
}

std::optional<Identity> TokenBook::authenticate(std::string_view token) const {
  if (token.empty()) return std::nullopt;
  unsigned char presented[kHashBytes];
  if (!digest(token, presented)) return std::nullopt;
  // No early exit and no branch on the comparison: `found` collects index + 1 of the (unique,
  // as parse() refuses duplicate hashes) matching entry through a mask.
  size_t found = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const auto equal =
        static_cast<size_t>(CRYPTO_memcmp(presented, entries_[i].hash.data(), kHashBytes) == 0);
    found |= (i + 1) & (size_t{0} - equal);
  }
  OPENSSL_cleanse(presented, sizeof presented);
  if (found == 0) return std::nullopt;
  return entries_[found - 1].identity;
}

std::string sha256Hex(std::string_view data) {
  unsigned char hash[SHA256_DIGEST_LENGTH];
  if (!digest(data, hash)) return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof hash);
  for (unsigned char byte : hash) {
    out += kHex[byte >> 4];
    out += kHex[byte & 0x0f];
  }
  return out;
}

Expected<std::string> generateToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    char reason[256];
    ERR_error_string_n(ERR_get_error(), reason, sizeof reason);
    return Error{std::string("cannot generate a token: the random source failed: ") + reason, {}};
  }
  std::string token = "tsr_" + base64Url(bytes, sizeof bytes);
  OPENSSL_cleanse(bytes, sizeof bytes);
  return token;
}

std::optional<std::string_view> bearerToken(std::string_view header) {
  constexpr std::string_view kScheme = "bearer";
  header = trimBlanks(header);
  if (header.size() <= kScheme.size() || toLower(header.substr(0, kScheme.size())) != kScheme)
    return std::nullopt;
  std::string_view rest = header.substr(kScheme.size());
  if (rest.front() != ' ') return std::nullopt;
  const size_t start = rest.find_first_not_of(' ');
  if (start == std::string_view::npos) return std::nullopt;
  rest.remove_prefix(start);
  if (!isToken68(rest)) return std::nullopt;
  return rest;
}

// ---- rate limiter --------------------------------------------------------------------------

RateLimiter::RateLimiter(double rate, double burst)
    : rate_(rate > 0 ? rate : 0), burst_(burst >= 1 ? burst : 1) {}

void RateLimiter::refill(Bucket& b, double now) const {
  if (!(now > b.last)) return;
  b.tokens = std::min(burst_, b.tokens + (now - b.last) * rate_);
  b.last = now;
}

// A full bucket behaves exactly like a new one, so forgetting it changes nothing for its owner
// and keeps a stream of distinct callers from growing the map without bound.
void RateLimiter::forgetFullBuckets(double now) {
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    refill(it->second, now);
    it = it->second.tokens >= burst_ ? buckets_.erase(it) : std::next(it);
  }
}

bool RateLimiter::allow(const std::string& who, double now) {
  std::lock_guard lock(mutex_);
  auto it = buckets_.find(who);
  if (it == buckets_.end()) {
    if (buckets_.size() >= pruneAt_) {
      forgetFullBuckets(now);
      // Doubling keeps the scans amortised O(1) even when nothing could be forgotten.
      pruneAt_ = std::max(kPruneThreshold, 2 * buckets_.size());
    }
    it = buckets_.emplace(who, Bucket{burst_, now}).first;
  }
  Bucket& b = it->second;
  refill(b, now);
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

bool RateLimiter::allow(const std::string& who) {
  const auto since = std::chrono::steady_clock::now().time_since_epoch();
  return allow(who, std::chrono::duration<double>(since).count());
}

}  // namespace tessera
