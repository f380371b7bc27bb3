// tessera ctl's output: aligned tables, numbers, the API's enums as words, engine times for
// people, and the API's messages as JSON (-o json).
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "cli/cli_ctl_internal.h"
#include "scheduler/command_yaml.h"

namespace tessera::cli::ctl {

namespace {

// Columns are aligned by characters, not bytes: names may be UTF-8.
size_t displayWidth(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

// "JOB_STATE_PENDING" -> "pending", "TOPOLOGY_LEVEL_NVLINK_DOMAIN" -> "nvlink-domain".
std::string enumWord(const std::string& name, std::string_view prefix) {
  std::string word = toLower(name.starts_with(prefix) ? name.substr(prefix.size()) : name);
  for (char& c : word)
    if (c == '_') c = '-';
  return word;
}

}  // namespace

void Table::print(std::ostream& out) const {
  std::vector<size_t> widths;
  for (const auto& row : rows_) {
    if (widths.size() < row.size()) widths.resize(row.size());
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], displayWidth(row[i]));
  }
  for (const auto& row : rows_) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(widths[i] - displayWidth(row[i]) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

std::string orDash(const std::string& s) {
  return s.empty() ? "-" : s;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string number(double v) {
  std::ostringstream s;
  s << std::setprecision(6) << v;
  return s.str();
}

std::string stateWord(v1::JobState s) {
  return enumWord(v1::JobState_Name(s), "JOB_STATE_");
}

std::string classWord(v1::WorkloadClass c) {
  return c == v1::WORKLOAD_CLASS_UNSPECIFIED
             ? "batch"
             : enumWord(v1::WorkloadClass_Name(c), "WORKLOAD_CLASS_");
}

std::string topologyWord(v1::TopologyLevel l) {
  return l == v1::TOPOLOGY_LEVEL_UNSPECIFIED
             ? "any"
             : enumWord(v1::TopologyLevel_Name(l), "TOPOLOGY_LEVEL_");
}

// Live mode's clock is unix time and simulated-live's counts from 0; a simulated clock would need
// 30 years of run time to pass 1e9, so the two cannot be confused.
std::string clockText(Seconds t) {
  if (t < 1'000'000'000) return "t=" + formatDuration(t);
  const auto tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%SZ", &tm);
  return buf;
}

std::string relativeText(Seconds t, Seconds now) {
  if (t == now) return "now";
  return t > now ? "in " + formatDuration(t - now) : formatDuration(now - t) + " ago";
}

int printJson(Call& c, const google::protobuf::Message& message, bool oneLine) {
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = !oneLine;
  o.preserve_proto_field_names = true;
#if GOOGLE_PROTOBUF_VERSION >= 5026000
  o.always_print_fields_with_no_presence = true;
#else
  o.always_print_primitive_fields = true;
#endif
  std::string text;
  const auto status = google::protobuf::util::MessageToJsonString(message, &text, o);
  if (!status.ok())
    return reportFailure(c, "internal", "cannot print the answer as JSON: " + status.ToString(),
                         false);
  c.out() << text;
  if (text.empty() || text.back() != '\n') c.out() << "\n";
  return kExitOk;
}

void printText(Call& c, const std::string& text) {
  c.out() << text;
  if (!text.empty() && text.back() != '\n') c.out() << "\n";
}

}  // namespace tessera::cli::ctl
