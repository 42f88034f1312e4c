# The ir-no-crash test: writes the tile IR and the laid-out tile IR of every
# kernel with tilec, then runs tile-opt-mutation-test on them and on the lit
# inputs of the dialect and the lowering.
#
#   cmake -DTILEC=... -DMUTATION_TEST=... -DSOURCE_DIR=... -DSECONDS=...
#         -P RunIRMutationTest.cmake

set(seed_dir ${CMAKE_CURRENT_BINARY_DIR}/ir-seeds)
file(MAKE_DIRECTORY ${seed_dir})
file(GLOB kernels ${SOURCE_DIR}/kernels/*.tile)
set(seeds)
# emit_seed(OUT ARGS...): tilec ARGS -o OUT, a failure fatal; OUT a seed.
macro(emit_seed out)
  execute_process(COMMAND ${TILEC} ${ARGN} -o ${out} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " args "${ARGN}")
    message(FATAL_ERROR "tilec ${args} failed (${rc})")
  endif()
  list(APPEND seeds ${out})
endmacro()
foreach(kernel ${kernels})
  get_filename_component(name ${kernel} NAME_WE)
  # Each kernel of the file on its own (kernels of one file may take
  # different options from their @hints).
  file(STRINGS ${kernel} heads REGEX "^kernel [A-Za-z_0-9]+")
  foreach(head ${heads})
    string(REGEX REPLACE "^kernel ([A-Za-z_0-9]+).*" "\\1" entry "${head}")
    foreach(emit tile layout)
      emit_seed(${seed_dir}/${name}.${entry}.${emit}.mlir ${kernel}
                --kernel=${entry} --emit=${emit})
    endforeach()
  endforeach()
endforeach()
# The sm_90a kernels as the specialized, persistent pipelines take them:
# laid out for 8 warps, with their tile loop.
foreach(kernel flash_attention gemm)
  emit_seed(${seed_dir}/${kernel}.persistent.layout.mlir
            ${SOURCE_DIR}/kernels/${kernel}.tile --emit=layout --arch=sm_90a
            --persistent --loop-split=false --num-warps=8)
endforeach()
file(GLOB lit_inputs ${SOURCE_DIR}/test/Dialect/Tile/*.mlir
     ${SOURCE_DIR}/test/Conversion/*.mlir)
list(APPEND seeds ${lit_inputs})

execute_process(COMMAND ${MUTATION_TEST} --iterations=1000000
                        --seconds=${SECONDS} ${seeds}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tile-opt-mutation-test failed (${rc}): see above; "
                      "the input is in ir-mutation-crash.mlir")
endif()
