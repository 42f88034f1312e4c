# ctest install-and-build-examples: installs the build into a fresh prefix,
# checks what is there, builds examples/ as a separate CMake project against
# it (find_package(tile CONFIG) -> tile::tile), compiles a C program with
# pkg-config's flags, imports the installed Python package, and runs the
# installed tilec and the example (which exits 77 where there is no GPU,
# after compiling its kernel).
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... [-DPYTHON=...]
#         -P InstallAndBuild.cmake
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${rc}):\n${out}${err}")
  endif()
  set(run_output "${out}${err}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

foreach(file lib/libtile.so include/tile/Tile.h include/tile/tile.h
        include/tile/Attention.h include/tile/Autotune.h include/tile/Decode.h
        bin/tilec
        bin/tile-opt share/tilec/kernels/flash_attention.tile
        lib/python3/dist-packages/tilec/__init__.py
        lib/cmake/tile/tileConfig.cmake lib/cmake/tile/tileTargets.cmake
        lib/pkgconfig/tile.pc)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()
# Only the API: no LLVM/MLIR libraries or headers, no tilec internals.
file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
foreach(file ${installed})
  if(file MATCHES "\\.a$|include/(mlir|llvm|tilec)/")
    message(FATAL_ERROR "the install should not hold ${file}")
  endif()
endforeach()

# The installed tilec runs from the prefix.
run("installed tilec" ${prefix}/bin/tilec
    ${prefix}/share/tilec/kernels/vector_add.tile --emit=ptx --arch=sm_80
    -o ${WORK_DIR}/vector_add.ptx)

# examples/ as a project of its own.
set(generator)
if(CMAKE_GENERATOR)
  set(generator -G ${CMAKE_GENERATOR})
endif()
run("configuring examples/" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples
    -B ${WORK_DIR}/examples ${generator} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix})
run("building examples/" ${CMAKE_COMMAND} --build ${WORK_DIR}/examples)
execute_process(COMMAND ${WORK_DIR}/examples/flash_attention_jit
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 AND NOT (rc EQUAL 77 AND out MATCHES "STOPPED before the launch"))
  message(FATAL_ERROR "the example built against the install failed "
                      "(exit ${rc}):\n${out}${err}")
endif()
message("flash_attention_jit against the install: exit ${rc}")

# pkg-config, where it is installed.
find_program(PKG_CONFIG NAMES pkg-config pkgconf)
find_program(CC NAMES cc gcc)
if(PKG_CONFIG AND CC)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
  run("pkg-config" ${PKG_CONFIG} --cflags --libs tile)
  string(STRIP "${run_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  file(WRITE ${WORK_DIR}/c_api.c
    "#include <tile/tile.h>\n#include <stdio.h>\n"
    "int main(void) { tile_stats s; return tile_runtime_stats(&s) == TILE_OK "
    "&& puts(tile_last_error()) >= 0 ? 0 : 1; }\n")
  run("a C program with pkg-config's flags" ${CC} ${WORK_DIR}/c_api.c
      -o ${WORK_DIR}/c_api ${flags})
  run("the C program" ${WORK_DIR}/c_api)
else()
  message("pkg-config or cc missing: the .pc file is not exercised")
endif()

# The installed Python package finds the installed library by itself.
if(PYTHON)
  set(ENV{TILEC_LIBRARY} "")
  unset(ENV{TILEC_LIBRARY})
  run("importing the installed Python package" ${PYTHON} -c
      "import sys; sys.path.insert(0, '${prefix}/lib/python3/dist-packages'); import tilec, os; lib = tilec._capi.lib(); assert os.path.realpath(lib._name).startswith(os.path.realpath('${prefix}')), lib._name; print('tilec', tilec.__version__, lib._name)")
  message("${run_output}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
