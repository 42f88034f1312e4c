# Fails unless LIBRARY's dynamic symbol table defines the tile API and
# nothing from llvm::, mlir:: or std::.
#   cmake -DLIBRARY=libtile.so -DNM=nm -P CheckExports.cmake
execute_process(COMMAND ${NM} -D --defined-only -C ${LIBRARY}
  RESULT_VARIABLE rc OUTPUT_VARIABLE symbols)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(bad)
set(count 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  math(EXPR count "${count} + 1")
  # "ADDRESS TYPE NAME": the name is everything after the second space.
  string(REGEX REPLACE "^[0-9a-fA-F]* *[A-Za-z] " "" name "${line}")
  if(NOT name MATCHES "^(tile::|tile_|_init$|_fini$|_edata$|_end$|__bss_start$)")
    list(APPEND bad "${name}")
  endif()
endforeach()
foreach(required tile_compile_file tile_kernel_launch tile_last_error
                 "tile::Runtime::get()" "tile::Kernel::launch")
  string(FIND "${symbols}" "${required}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${LIBRARY} does not export ${required}")
  endif()
endforeach()
if(bad)
  list(JOIN bad "\n  " text)
  message(FATAL_ERROR "${LIBRARY} exports symbols outside the tile API:\n  ${text}")
endif()
message("${LIBRARY}: ${count} exported symbols, all tile API")
