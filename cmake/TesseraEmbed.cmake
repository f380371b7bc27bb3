# tessera_embed_text(<target> <symbol> <file>)
# Compiles <file> into <target> as `std::string_view tessera::embedded::<symbol>()`, so the
# engine libraries can ship their data files (GPU catalog, demo cluster) without Qt resources,
# while the same files stay editable data in resources/.
function(tessera_embed_text target symbol file)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${file} -DOUTPUT=${out} -DSYMBOL=${symbol}
            -P ${PROJECT_SOURCE_DIR}/cmake/TesseraEmbedGenerate.cmake
    DEPENDS ${file} ${PROJECT_SOURCE_DIR}/cmake/TesseraEmbedGenerate.cmake
    COMMENT "Embedding ${file}")
  target_sources(${target} PRIVATE ${out})
endfunction()
