#include "cli/cli_report_remote.h"

namespace tessera::cli {

Expected<Report> fetchRemoteReport(const ctl::GlobalFlags& flags, const ReportRequest& request) {
  TESSERA_TRY(options, ctl::resolveOptions(flags, ctl::processEnvironment()));
  TESSERA_TRY(session, rpc::RemoteSession::connect(options));
  // RemoteSession answers on the calling thread before report() returns.
  std::optional<std::variant<Report, ApiError>> answer;
  session->report(request, [&answer](std::variant<Report, ApiError> r) { answer = std::move(r); });
  if (!answer) return Error{options.address + ": no answer", {}};
  if (auto* e = std::get_if<ApiError>(&*answer))
    return Error{options.address + ": " + errorKindName(e->kind) + ": " + e->message, {}};
  return std::move(std::get<Report>(*answer));
}

}  // namespace tessera::cli
