#pragma once
// Report periods and time zones: parsing --from/--to (dates and times in a named zone or with an
// offset, engine seconds, or durations back from the newest data), the boundaries of calendar
// days/weeks/months in a zone (scheduled reports), and showing times in a zone. Time zones come
// from the system's tz database (tzdata) through QtCore's QTimeZone.
#include <optional>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "core/ids.h"

namespace tessera {

// Valid: "UTC", an IANA name ("Europe/Berlin"), or a fixed offset ("+02:00", "-0530").
Status checkTimeZone(const std::string& zone);

// A point in time as a user writes it; `zone` applies to dates and times without an offset:
//   2026-11-01                 midnight starting that day
//   2026-11-01T08:30[:00]      local time in `zone` (a space may replace the T)
//   2026-11-01T08:30:00Z, ...+01:00   with an explicit offset
//   @1762000000                engine seconds (Unix time for a live backend; seconds since the
//                              start for a simulation)
//   -7d, -36h, -90m            that long before `newest`
// The error names what was wrong with the text.
Expected<Seconds> parseReportTime(std::string_view text, const std::string& zone, Seconds newest);

enum class ReportPeriod : uint8_t { Day, Week, Month };  // weeks start on Monday
const char* reportPeriodName(ReportPeriod p);            // "daily", "weekly", "monthly"
std::optional<ReportPeriod> parseReportPeriod(std::string_view text);
// The start of the period that contains `t`, and the start of the next one, in `zone` (a day
// across a daylight-saving change is 23 or 25 hours long).
Seconds periodStart(ReportPeriod p, Seconds t, const std::string& zone);
Seconds nextPeriodStart(ReportPeriod p, Seconds t, const std::string& zone);

// "2026-11-01 08:30 CET" (wall clock, shown in `zone`), or "+1d 02:30" for simulated time.
std::string formatReportTime(Seconds t, bool wallClock, const std::string& zone);
// ISO 8601 in UTC: "2026-11-01T07:30:00Z".
std::string isoUtc(Seconds t);

}  // namespace tessera
