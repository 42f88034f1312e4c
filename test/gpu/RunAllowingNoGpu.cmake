# Runs PROGRAM [ARGS] and passes when it exits 0, or when it exits 77 (no
# GPU) having printed NO_GPU_PATTERN: a program that stops cleanly where the
# GPU is needed. Anything else fails.
#   cmake -DPROGRAM=... [-DARGS=...] -DNO_GPU_PATTERN=... -P RunAllowingNoGpu.cmake
execute_process(COMMAND ${PROGRAM} ${ARGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc EQUAL 0)
  return()
endif()
if(rc EQUAL 77)
  string(FIND "${out}" "${NO_GPU_PATTERN}" at)
  if(at GREATER -1)
    message("no GPU: the program stopped cleanly where it needed one (exit 77)")
    return()
  endif()
  message(FATAL_ERROR "exit 77 without '${NO_GPU_PATTERN}' in the output")
endif()
message(FATAL_ERROR "${PROGRAM} failed (exit ${rc})")
