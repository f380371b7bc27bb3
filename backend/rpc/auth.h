#pragma once
// Bearer-token authentication for tesserad's RPC and HTTP surfaces (no gRPC types here): the token
// file, token hashing and generation, the "authorization" header, roles and per-identity rate
// limits.
//
// Token file (YAML), e.g. /etc/tessera/tokens.yaml:
//
//   tokens:
//     - name: alice        # the identity written to the audit log
//       role: operator     # viewer | operator | admin | agent
//       sha256: 56bdbd6e637fc17b8ccf340f1f457d2a9491e3e9f10bc0c37f0c067426d388b2
//
// Only the SHA-256 of each token is stored, as 64 lowercase hex characters (the one above is
// that of the token "tsr_example"), so a leaked file does not leak tokens. sha256Hex() computes
// it, as does: printf %s "$TOKEN" | sha256sum
//
// Every field is required and no other field is allowed. Names are 1-64 characters of
// [A-Za-z0-9._@+-] because they end up in the audit log verbatim. The file is refused, with
// file:line, the field path and the reason in the error, when it is unreadable or not YAML, when
// the list is missing or empty, or when an entry has a duplicate name, an unknown role, a
// malformed hash, the hash of the empty token, or the same hash as an earlier entry (two
// identities must never share one token).
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace tessera {

// Viewer < Operator < Admin are ordered by power: each may do everything the roles below it may
// do. Agent stands apart: a GPU node's agent may push its telemetry and nothing else (not even
// read), so a token on every node cannot cancel or drain anything; operators and admins may push
// too. Roles are cluster-wide (tokens carry no team): docs/tesserad.md#security says why.
enum class Role : uint8_t { Viewer, Operator, Admin, Agent };

const char* roleName(Role role);
// "viewer", "operator", "admin" or "agent", in any letter case.
std::optional<Role> parseRole(std::string_view text);
// Whether a caller holding `granted` may perform an action that needs `required`.
inline bool permits(Role granted, Role required) {
  if (granted == Role::Agent) return required == Role::Agent;
  if (required == Role::Agent) return granted >= Role::Operator;
  return granted >= required;
}

struct Identity {
  std::string name;
  Role role = Role::Viewer;

  friend bool operator==(const Identity&, const Identity&) = default;
};

class TokenBook {
 public:
  // An empty book: it authenticates no one.
  TokenBook() = default;

  static Expected<TokenBook> load(const std::string& path);
  static Expected<TokenBook> parse(std::string_view yaml, const std::string& fileName);

  // The identity for a presented bearer token, or nullopt. Hashes the presented token and
  // compares it with EVERY stored hash in constant time (CRYPTO_memcmp), so timing reveals
  // neither which entry matched nor how many bytes did. The empty token never authenticates.
  [[nodiscard]] std::optional<Identity> authenticate(std::string_view token) const;
  [[nodiscard]] size_t size() const { return entries_.size(); }

 private:
  static constexpr size_t kHashBytes = 32;
  struct Entry {
    Identity identity;
    std::array<unsigned char, kHashBytes> hash;
  };
  std::vector<Entry> entries_;
};

// Lowercase hex SHA-256 of `data` (empty only if OpenSSL itself cannot hash).
std::string sha256Hex(std::string_view data);

// A new random token: "tsr_" followed by 32 bytes from RAND_bytes in base64url without padding
// (47 characters in all). Fails only when the system's random source does.
Expected<std::string> generateToken();

// The token of an HTTP/gRPC "authorization" header value "Bearer <token>" (scheme in any case,
// one space or more before the token, surrounding blanks ignored). nullopt unless the token is a
// non-empty RFC 6750 token68 ([A-Za-z0-9-._~+/]+ then '=' padding only). The result is a view
// into `header`.
std::optional<std::string_view> bearerToken(std::string_view header);

// Per-identity token bucket: `rate` requests per second on average, bursts of up to `burst`.
// Thread-safe. A burst below 1 is raised to 1 (otherwise nothing could ever pass) and a negative
// rate counts as 0 (the bucket never refills).
class RateLimiter {
 public:
  RateLimiter(double rate, double burst);

  // Whether `who` may make a request at `now` (steady-clock seconds; injectable for tests). Time
  // that runs backwards refills nothing.
  bool allow(const std::string& who, double now);
  // The same at std::chrono::steady_clock's current time.
  bool allow(const std::string& who);

 private:
  struct Bucket {
    double tokens = 0;
    double last = 0;  // when `tokens` was last brought up to date
  };
  void refill(Bucket& b, double now) const;
  void forgetFullBuckets(double now);

  // Buckets are forgotten only once this many exist, so the common case never scans the map.
  static constexpr size_t kPruneThreshold = 4096;

  double rate_;
  double burst_;
  std::mutex mutex_;
  size_t pruneAt_ = kPruneThreshold;
  std::map<std::string, Bucket, std::less<>> buckets_;
};

}  // namespace tessera
