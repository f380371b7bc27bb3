#pragma once
// Computes a Report from a ReportSource: one streaming pass over the usage rows that overlap the
// range (clipped to it), one over the jobs for queue waits, and the cluster-wide series for
// capacity and stranded GPUs. Memory grows with the number of groups and jobs in the range, not
// with the number of telemetry samples. Definitions of every figure: docs/reports.md.
#include <functional>

#include "report/report.h"
#include "report/report_source.h"

namespace tessera {

// Called now and then with the fraction done (0..1); returning false cancels the report (the
// result is then an error saying so).
using ReportProgress = std::function<bool(double fractionDone)>;

// Errors: an inverted or empty range, a team the source does not know, a GPU model without a
// price (and no default in the table), a source that cannot be read.
Expected<Report> computeReport(const ReportSource& source, const ReportRequest& request,
                               const ReportProgress& progress = {});

}  // namespace tessera
