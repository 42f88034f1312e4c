# Runs PROBE twice on KERNEL with a fresh TILEC_CACHE_DIR: the first process
# compiles and writes the cache, the second finds the PTX on disk.
file(REMOVE_RECURSE ${CACHE_DIR})
set(ENV{TILEC_CACHE_DIR} ${CACHE_DIR})
foreach(run first second)
  execute_process(COMMAND ${PROBE} ${KERNEL}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${run}: ${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ${run} process failed")
  endif()
  set(${run} "${out}")
endforeach()
if(NOT first MATCHES "compiles=1 disk_hits=0 disk_writes=1")
  message(FATAL_ERROR "the first process should compile and write the cache")
endif()
if(NOT second MATCHES "compiles=0 disk_hits=1")
  message(FATAL_ERROR "the second process should find the PTX on disk")
endif()
