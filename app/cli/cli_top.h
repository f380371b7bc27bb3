#pragma once
// `tessera top`: the terminal console's verb (options only; the console is tui/).
#include "cli/cli_context.h"

namespace tessera::cli {

void addTopVerb(CLI::App& app, Context& ctx);

}  // namespace tessera::cli
