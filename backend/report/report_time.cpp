#include "report/report_time.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QTimeZone>

#include <cmath>
#include <cstdio>

#include "workload/workload_spec.h"

namespace tessera {
namespace {

// "+02:00", "-0530", "+2" -> seconds east of UTC.
std::optional<int> parseOffset(const QString& text) {
  static const QRegularExpression re(R"(^([+-])(\d{1,2})(?::?(\d{2}))?$)");
  const auto m = re.match(text);
  if (!m.hasMatch()) return std::nullopt;
  const int hours = m.captured(2).toInt();
  const int minutes = m.captured(3).isEmpty() ? 0 : m.captured(3).toInt();
  if (hours > 14 || minutes > 59) return std::nullopt;
  const int sign = m.captured(1) == "-" ? -1 : 1;
  return sign * (hours * 3600 + minutes * 60);
}

std::optional<QTimeZone> zoneOf(const std::string& zone) {
  const QString z = QString::fromStdString(zone);
  if (z.isEmpty() || z == "UTC" || z == "Z") return QTimeZone::utc();
  if (const auto offset = parseOffset(z)) return QTimeZone(*offset);
  QTimeZone tz(z.toUtf8());
  if (!tz.isValid()) return std::nullopt;
  return tz;
}

QTimeZone zoneOrUtc(const std::string& zone) {
  return zoneOf(zone).value_or(QTimeZone::utc());
}

}  // namespace

Status checkTimeZone(const std::string& zone) {
  if (zoneOf(zone)) return okStatus();
  return Error{"unknown time zone '" + zone +
                   "': give UTC, an IANA name like Europe/Berlin, or an offset like +02:00",
               {}};
}

Expected<Seconds> parseReportTime(std::string_view text, const std::string& zone, Seconds newest) {
  const QString t = QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())).trimmed();
  if (t.startsWith('@')) {
    bool ok = false;
    const qlonglong v = t.mid(1).toLongLong(&ok);
    if (!ok) return Error{"'" + std::string(text) + "': after @ give whole seconds", {}};
    return static_cast<Seconds>(v);
  }
  if (t.startsWith('-')) {
    if (const auto ago = parseDuration(t.mid(1).toStdString())) return newest - *ago;
    return Error{"'" + std::string(text) + "': a relative time is like -7d, -36h or -90m", {}};
  }
  const auto tz = zoneOf(zone);
  if (!tz) return checkTimeZone(zone).error();
  QString iso = t;
  iso.replace(' ', 'T');
  static const QRegularExpression hasOffset(R"((Z|[+-]\d{2}:?\d{2})$)");
  const bool explicitOffset = iso.contains('T') && hasOffset.match(iso).hasMatch();
  QDateTime dt;
  if (explicitOffset) {
    dt = QDateTime::fromString(iso, Qt::ISODate);
  } else if (!iso.contains('T')) {
    const QDate d = QDate::fromString(iso, Qt::ISODate);
    if (d.isValid()) dt = QDateTime(d, QTime(0, 0), *tz);
  } else {
    const QDateTime local = QDateTime::fromString(iso, Qt::ISODate);
    if (local.isValid()) dt = QDateTime(local.date(), local.time(), *tz);
  }
  if (!dt.isValid())
    return Error{"'" + std::string(text) +
                     "' is not a time: give 2026-11-01, 2026-11-01T08:30, "
                     "2026-11-01T08:30:00+01:00, @SECONDS or -7d",
                 {}};
  return static_cast<Seconds>(dt.toSecsSinceEpoch());
}

const char* reportPeriodName(ReportPeriod p) {
  switch (p) {
    case ReportPeriod::Day:
      return "daily";
    case ReportPeriod::Week:
      return "weekly";
    case ReportPeriod::Month:
      return "monthly";
  }
  return "daily";
}

std::optional<ReportPeriod> parseReportPeriod(std::string_view text) {
  for (ReportPeriod p : {ReportPeriod::Day, ReportPeriod::Week, ReportPeriod::Month})
    if (text == reportPeriodName(p)) return p;
  return std::nullopt;
}

Seconds periodStart(ReportPeriod p, Seconds t, const std::string& zone) {
  const QTimeZone tz = zoneOrUtc(zone);
  const QDate day = QDateTime::fromSecsSinceEpoch(t, tz).date();
  QDate first = day;
  if (p == ReportPeriod::Week) first = day.addDays(1 - day.dayOfWeek());
  if (p == ReportPeriod::Month) first = QDate(day.year(), day.month(), 1);
  return QDateTime(first, QTime(0, 0), tz).toSecsSinceEpoch();
}

Seconds nextPeriodStart(ReportPeriod p, Seconds t, const std::string& zone) {
  const QTimeZone tz = zoneOrUtc(zone);
  const QDate first = QDateTime::fromSecsSinceEpoch(periodStart(p, t, zone), tz).date();
  const QDate next = p == ReportPeriod::Day    ? first.addDays(1)
                     : p == ReportPeriod::Week ? first.addDays(7)
                                               : first.addMonths(1);
  return QDateTime(next, QTime(0, 0), tz).toSecsSinceEpoch();
}

std::string formatReportTime(Seconds t, bool wallClock, const std::string& zone) {
  if (!wallClock) {
    const Seconds days = t / 86400, rest = t % 86400;
    char buf[48];
    std::snprintf(buf, sizeof buf, "+%lldd %02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>(rest / 3600), static_cast<long long>(rest % 3600 / 60));
    return buf;
  }
  const QDateTime dt = QDateTime::fromSecsSinceEpoch(t, zoneOrUtc(zone));
  return (dt.toString("yyyy-MM-dd HH:mm") + " " + dt.timeZoneAbbreviation()).toStdString();
}

std::string isoUtc(Seconds t) {
  return QDateTime::fromSecsSinceEpoch(t, QTimeZone::utc())
      .toString("yyyy-MM-ddTHH:mm:ssZ")
      .toStdString();
}

}  // namespace tessera
