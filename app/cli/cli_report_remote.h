#pragma once
// A report computed by a remote tesserad: `tessera report --server ...` (cli_report.cpp) asks
// the server for the report (GetReport) instead of opening a database file, then writes it in
// any format like a local one. The connection is resolved exactly as `tessera ctl` resolves it
// (flags, then TESSERA_* variables, then the ctl config file; docs/ctl.md).
#include "cli/cli_ctl.h"
#include "report/report.h"

namespace tessera::cli {

// Errors: unusable connection settings (a token file that cannot be read, a bad --timeout), or
// the server's refusal or silence as "ADDRESS: KIND: MESSAGE" (KIND as errorKindName says it).
Expected<Report> fetchRemoteReport(const ctl::GlobalFlags& flags, const ReportRequest& request);

}  // namespace tessera::cli
