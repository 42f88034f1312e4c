# Writes INPUT's text to OUTPUT as a C++ raw string literal (for #include),
# so that libtile carries kernels/flash_attention.tile.
file(READ ${INPUT} text)
string(FIND "${text}" ")tile_source\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string's delimiter")
endif()
file(WRITE ${OUTPUT}.tmp "R\"tile_source(${text})tile_source\"\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
