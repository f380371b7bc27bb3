#include "store/usage_store.h"

#include <limits>

namespace tessera {
namespace {

constexpr const char* kColumns =
    "job, start, part, run, end, end_reason, team, class, workload, kind, profile, node, model, "
    "pool, gpus, units, mig_slices, gpu_hours_lost, samples";

std::optional<UsageKind> parseKind(const std::string& text) {
  for (UsageKind k : {UsageKind::Whole, UsageKind::Mig, UsageKind::Fraction, UsageKind::Mps})
    if (text == usageKindName(k)) return k;
  return std::nullopt;
}

Expected<UsageRecord> readRow(const Statement& q) {
  UsageRecord u;
  u.job = static_cast<JobId>(q.int64At(0));
  u.start = q.int64At(1);
  u.part = static_cast<int>(q.int64At(2));
  u.run = static_cast<int>(q.int64At(3));
  if (!q.isNull(4)) u.end = q.int64At(4);
  u.endReason = q.textAt(5);
  u.team = q.textAt(6);
  u.priorityClass = q.textAt(7);
  u.workloadClass = q.textAt(8);
  const auto kind = parseKind(q.textAt(9));
  if (!kind)
    return Error{
        "usage row of job " + std::to_string(u.job) + ": unknown kind '" + q.textAt(9) + "'", {}};
  u.kind = *kind;
  u.profile = q.textAt(10);
  u.share = {q.textAt(11),   q.textAt(12),       q.textAt(13),
             q.doubleAt(14), int(q.int64At(15)), int(q.int64At(16))};
  u.gpuHoursLost = q.doubleAt(17);
  const auto [data, bytes] = q.blobAt(18);
  auto samples = decodeUsageSamples(u.start, data, bytes);
  if (!samples)
    return Error{"usage row of job " + std::to_string(u.job) + ": " + samples.error().message, {}};
  u.samples = std::move(*samples);
  return u;
}

}  // namespace

std::vector<unsigned char> encodeUsageSamples(Seconds start, const std::vector<UsageSample>& s) {
  std::vector<unsigned char> out;
  out.reserve(s.size() * 6);
  for (const UsageSample& x : s) {
    const int64_t delta = std::clamp<int64_t>(x.time - start, std::numeric_limits<int32_t>::min(),
                                              std::numeric_limits<int32_t>::max());
    const auto u = static_cast<uint32_t>(static_cast<int32_t>(delta));
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<unsigned char>(u >> (8 * b)));
    out.push_back(x.util);
    out.push_back(x.sm);
  }
  return out;
}

Expected<std::vector<UsageSample>> decodeUsageSamples(Seconds start, const unsigned char* data,
                                                      size_t bytes) {
  if (bytes % 6 != 0)
    return Error{"telemetry of " + std::to_string(bytes) + " bytes, not a multiple of 6", {}};
  std::vector<UsageSample> out(bytes / 6);
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned char* p = data + i * 6;
    uint32_t u = 0;
    for (int b = 0; b < 4; ++b) u |= static_cast<uint32_t>(p[b]) << (8 * b);
    out[i].time = start + static_cast<int32_t>(u);
    out[i].util = p[4];
    out[i].sm = p[5];
  }
  return out;
}

Status UsageStore::saveInTransaction(const std::vector<UsageRecord>& rows) {
  if (rows.empty()) return okStatus();
  TESSERA_TRY(q, db_.prepare(std::string("INSERT OR REPLACE INTO usage(") + kColumns +
                             ") VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"));
  for (const UsageRecord& u : rows) {
    const auto blob = encodeUsageSamples(u.start, u.samples);
    q.bind(1, static_cast<int64_t>(u.job)).bind(2, int64_t{u.start}).bind(3, int64_t{u.part});
    q.bind(4, int64_t{u.run});
    if (u.end)
      q.bind(5, int64_t{*u.end});
    else
      q.bindNull(5);
    q.bind(6, u.endReason).bind(7, u.team).bind(8, u.priorityClass).bind(9, u.workloadClass);
    q.bind(10, std::string(usageKindName(u.kind))).bind(11, u.profile).bind(12, u.share.node);
    q.bind(13, u.share.model).bind(14, u.share.pool).bind(15, u.share.gpus);
    q.bind(16, int64_t{u.share.units}).bind(17, int64_t{u.share.migSlices});
    q.bind(18, u.gpuHoursLost).bindBlob(19, blob.data(), blob.size());
    TESSERA_CHECK(q.run());
    TESSERA_CHECK(q.reset());
  }
  return okStatus();
}

Expected<std::vector<UsageRecord>> UsageStore::openRuns() const {
  TESSERA_TRY(q, db_.prepare(std::string("SELECT ") + kColumns +
                             " FROM usage WHERE end IS NULL ORDER BY job, part"));
  std::vector<UsageRecord> out;
  while (true) {
    TESSERA_TRY(row, q.step());
    if (!row) break;
    TESSERA_TRY(u, readRow(q));
    out.push_back(std::move(u));
  }
  return out;
}

Status UsageStore::forEach(Seconds from, Seconds to,
                           const std::function<Status(const UsageRecord&)>& row) const {
  TESSERA_TRY(q, db_.prepare(std::string("SELECT ") + kColumns +
                             " FROM usage WHERE start < ?1 AND (end IS NULL OR end >= ?2)"
                             " ORDER BY start"));
  q.bind(1, int64_t{to}).bind(2, int64_t{from});
  while (true) {
    TESSERA_TRY(more, q.step());
    if (!more) return okStatus();
    TESSERA_TRY(u, readRow(q));
    TESSERA_CHECK(row(u));
  }
}

Expected<size_t> UsageStore::count(Seconds from, Seconds to) const {
  TESSERA_TRY(
      q, db_.prepare("SELECT count(*) FROM usage WHERE start < ?1 AND (end IS NULL OR end >= ?2)"));
  q.bind(1, int64_t{to}).bind(2, int64_t{from});
  TESSERA_TRY(row, q.step());
  return row ? static_cast<size_t>(q.int64At(0)) : 0;
}

Expected<std::optional<std::pair<Seconds, Seconds>>> UsageStore::span() const {
  TESSERA_TRY(q, db_.prepare("SELECT min(start), max(coalesce(end, start)) FROM usage"));
  TESSERA_TRY(row, q.step());
  if (!row || q.isNull(0)) return std::optional<std::pair<Seconds, Seconds>>{};
  return std::optional<std::pair<Seconds, Seconds>>{std::pair{q.int64At(0), q.int64At(1)}};
}

}  // namespace tessera
