#pragma once
// Engine and session values <-> tessera.v1 messages, both directions: the server turns requests
// into commands and jobs and replies into messages; the client (RemoteSession, tessera ctl) does
// the reverse. Conversions from messages validate and name the offending field.
#include "auth.h"
#include "service/session.h"
#include "tessera.grpc.pb.h"

namespace tessera::rpc {

namespace v1 = ::tessera::v1;

// A field error: "jobs[2].per_task: ..." (the server answers INVALID_ARGUMENT with it).
Expected<Job> jobFromProto(const v1::JobSpec& spec, const std::string& field,
                           const std::vector<PriorityClass>& classes);
v1::JobSpec jobSpecToProto(const Job& job);

// A translatable sentence; from the wire, nesting deeper than kMaxTextDepth is cut off there (the
// rest of the tree is kept, the cut arguments show as their pattern).
inline constexpr int kMaxTextDepth = 32;
v1::Text textToProto(const Text& t);
Text textFromProto(const v1::Text& t);
// The Text when the message has one, else the plain English string as a literal (an older peer).
Text textOr(bool has, const v1::Text& t, const std::string& english);
// The same for a list sent twice (English lines and their Texts); an older peer sends English only.
std::vector<Text> textsOr(const google::protobuf::RepeatedPtrField<v1::Text>& texts,
                          const google::protobuf::RepeatedPtrField<std::string>& english);

v1::Job jobToProto(const JobInfo& info);
JobInfo jobFromProto(const v1::Job& job);

v1::JobState stateToProto(JobState s);
std::optional<JobState> stateFromProto(v1::JobState s);

// The action of an ActRequest as a command; INVALID_ARGUMENT text when none or malformed.
Expected<Command> commandFromProto(const v1::ActRequest& request);
v1::ActRequest commandToProto(const Command& command, bool dryRun);
// The role an action needs: job and queue actions operator, cluster-wide ones admin.
Role requiredRole(const Command& command);

v1::ActResponse resultToProto(const CommandResult& r);
CommandResult resultFromProto(const v1::ActResponse& r);

v1::Explanation explanationToProto(const Explanation& x);
Explanation explanationFromProto(const v1::Explanation& x);

v1::SnapshotReservation reservationToProto(const ReservationView& r);
ReservationView reservationFromProto(const v1::SnapshotReservation& r);
v1::ClusterSnapshot snapshotToProto(const ClusterSnapshot& s);
ClusterSnapshot snapshotFromProto(const v1::ClusterSnapshot& s);

v1::Event eventToProto(const Event& e);
Event eventFromProto(const v1::Event& e);

v1::QueryMetricsResponse metricsToProto(const MetricAnswer& a);
MetricAnswer metricsFromProto(const v1::QueryMetricsResponse& r);

// GetReport. The request's fields as a ReportRequest, checked and named ("group_by: unknown
// group 'x' (team, ...)"; a price table's errors as "prices_yaml:LINE:COL: ..."); the format is
// checked separately because it is not part of the report.
Expected<ReportRequest> reportRequestFromProto(const v1::GetReportRequest& request);
v1::GetReportRequest reportRequestToProto(const ReportRequest& request);
// The price table as YAML text that parsePriceTable reads back to an equal table (a client
// holds the parsed table, the wire carries text).
std::string priceTableToYaml(const PriceTable& table);

// How the report travels back: the whole report as JSON (default) or one CSV table.
struct ReportFormat {
  bool csv = false;
  std::string table;  // csv only
};
// `withPrices`: the chargeback table exists only with a price table.
Expected<ReportFormat> reportFormatFromProto(const v1::GetReportRequest& request, bool withPrices);
v1::GetReportResponse reportToProto(const Report& report, const ReportFormat& format);

}  // namespace tessera::rpc
