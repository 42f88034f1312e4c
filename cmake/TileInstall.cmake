# `cmake --install BUILD --prefix PREFIX` puts in PREFIX:
#   lib/libtile.so, include/tile/*.h         the library and its API
#   bin/tilec, bin/tile-opt                  the tools
#   share/tilec/kernels/*.tile               the project's kernels
#   lib/python3/dist-packages/tilec          the Python package (ctypes over
#                                            lib/libtile.so, found relative
#                                            to the package)
#   lib/cmake/tile/tileConfig*.cmake         find_package(tile CONFIG) ->
#                                            tile::tile, tile_KERNELS_DIR
#   lib/pkgconfig/tile.pc                    pkg-config --cflags --libs tile
# The programs find libtile.so at $ORIGIN/../lib.
if(NOT TARGET tile)
  return()
endif()
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(TILE_PACKAGE_VERSION 0.1.0)

install(TARGETS tile EXPORT tileTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tile
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h"
  PATTERN "*.def")
foreach(tool tilec tile-opt)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
set_target_properties(tile-opt PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/
  DESTINATION ${CMAKE_INSTALL_DATADIR}/tilec/kernels
  FILES_MATCHING PATTERN "*.tile")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/tilec
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/python3/dist-packages
  FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)

install(EXPORT tileTargets NAMESPACE tile::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tile)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tileConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/tileConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tile
  PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/tileConfigVersion.cmake
  VERSION ${TILE_PACKAGE_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/tileConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/tileConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tile)

configure_file(${PROJECT_SOURCE_DIR}/cmake/tile.pc.in
  ${PROJECT_BINARY_DIR}/cmake/tile.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/tile.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
