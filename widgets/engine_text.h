#pragma once
// The engine's sentences (core/text.h) in the operator's language: each template is looked up in
// the translations under "tessera::text" (where lupdate files core/engine_text.h), its arguments
// are shown the same way, and literals (names, numbers, an operator's words) stay as they are. A
// template the translations do not know, say from a newer tesserad, shows in English.
#include <QString>

#include "core/text.h"

namespace tessera {

inline constexpr const char* kEngineTextContext = "tessera::text";

QString displayText(const Text& text);

}  // namespace tessera
