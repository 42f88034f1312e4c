# Prefer LLVM's lld: linking the statically linked tools with GNU ld takes
# minutes on a two-core machine, with lld seconds.
find_program(TILEC_LLD NAMES ld.lld-22 ld.lld)
if(TILEC_LLD)
  get_filename_component(_lld_dir "${TILEC_LLD}" DIRECTORY)
  add_link_options("-fuse-ld=lld" "-B${_lld_dir}")
  # The Debian package installs ld.lld-22; make `-fuse-ld=lld` find it.
  if(NOT EXISTS "${_lld_dir}/ld.lld")
    file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/lld")
    file(CREATE_LINK "${TILEC_LLD}" "${PROJECT_BINARY_DIR}/lld/ld.lld" SYMBOLIC)
    add_link_options("-B${PROJECT_BINARY_DIR}/lld")
  endif()
  message(STATUS "Linking with ${TILEC_LLD}")
endif()
