#pragma once
// `tessera node probe` (cli_node.cpp).
#include "cli/cli_context.h"

namespace tessera::cli {

void addNodeVerbs(CLI::App& app, Context& ctx);

}  // namespace tessera::cli
