#pragma once
// `tessera node probe|sample` (cli_node.cpp) and `tessera agent` (cli_agent.cpp).
#include "cli/cli_context.h"

namespace tessera::cli {

void addNodeVerbs(CLI::App& app, Context& ctx);
void addAgentVerb(CLI::App& app, Context& ctx);

}  // namespace tessera::cli
