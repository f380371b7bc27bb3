# Script mode helper of TesseraEmbed.cmake: writes a C++ file holding INPUT as a byte array.
file(READ ${INPUT} content HEX)
string(LENGTH "${content}" hexlen)
math(EXPR size "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
file(WRITE ${OUTPUT}
"// Generated from ${INPUT}; do not edit.\n#include <string_view>\nnamespace tessera::embedded {\nnamespace { constexpr char kData[] = {${bytes} '\\0'}; }\nstd::string_view ${SYMBOL}() { return {kData, ${size}}; }\n}\n")
