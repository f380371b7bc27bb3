#pragma once
// Slurm-style hostlist expressions: "dgx[001-016]", "node[1-3,7]", "a,b,c".
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace tessera {

// Expands an expression into names, keeping zero padding ("dgx[08-10]" -> dgx08 dgx09 dgx10).
// One bracket group per name; at most `limit` names.
Expected<std::vector<std::string>> expandHostlist(std::string_view expr, size_t limit = 1000000);

// Expands an index list such as "0-3,6" into numbers in [0, max).
Expected<std::vector<int>> expandIndexList(std::string_view expr, int max);

}  // namespace tessera
