# One place for the warning set, so every target of ours compiles with the same flags.
add_library(tessera_warnings INTERFACE)
target_compile_options(tessera_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Woverloaded-virtual -Wconversion -Wsign-conversion -Wformat=2
  -Wimplicit-fallthrough)
if(TESSERA_WERROR)
  target_compile_options(tessera_warnings INTERFACE -Werror)
endif()
