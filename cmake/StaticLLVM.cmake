# Debian's MLIR targets link the LLVM shared library ("LLVM" in their link
# interfaces) and LLVMSupport pulls in libz3.so. For a tool that runs where no
# LLVM is installed, replace both by LLVM's static component libraries, so that
# only libc, libstdc++, libm, libz and libzstd remain dynamic.

set(_tilec_llvm_static_libs)
foreach(lib ${LLVM_AVAILABLE_LIBS})
  if(lib MATCHES "^LLVM[A-Za-z0-9]+$" AND TARGET ${lib})
    get_target_property(_type ${lib} TYPE)
    if(_type STREQUAL "STATIC_LIBRARY")
      list(APPEND _tilec_llvm_static_libs ${lib})
    endif()
  endif()
endforeach()

# Drop the components that need libraries this machine lacks (libcurl for
# Debuginfod, libedit for LineEditor, ...), and everything that depends on
# them. Nothing tilec uses needs them.
set(_tilec_bad)
foreach(lib ${_tilec_llvm_static_libs})
  get_target_property(_deps ${lib} INTERFACE_LINK_LIBRARIES)
  foreach(d ${_deps})
    if((d MATCHES "::" AND NOT TARGET ${d}) OR d MATCHES "pfm|xml2|edit|curl")
      list(APPEND _tilec_bad ${lib})
    elseif(TARGET ${d} AND NOT d MATCHES "::")
      # Debian ships some exported targets (Polly) without their archives.
      get_target_property(_loc ${d} IMPORTED_LOCATION_RELWITHDEBINFO)
      if(_loc AND NOT EXISTS "${_loc}")
        list(APPEND _tilec_bad ${lib})
      endif()
    endif()
  endforeach()
endforeach()
set(_tilec_changed TRUE)
while(_tilec_changed)
  set(_tilec_changed FALSE)
  foreach(lib ${_tilec_llvm_static_libs})
    if(lib IN_LIST _tilec_bad)
      continue()
    endif()
    get_target_property(_deps ${lib} INTERFACE_LINK_LIBRARIES)
    foreach(d ${_deps})
      if(d IN_LIST _tilec_bad)
        list(APPEND _tilec_bad ${lib})
        set(_tilec_changed TRUE)
        break()
      endif()
    endforeach()
  endforeach()
endwhile()
list(REMOVE_ITEM _tilec_llvm_static_libs ${_tilec_bad})
# Only the NVPTX back end is needed; other targets only slow the link.
list(FILTER _tilec_llvm_static_libs EXCLUDE REGEX
  "^LLVM(AArch64|AMDGPU|ARM|AVR|BPF|Hexagon|Lanai|LoongArch|Mips|MSP430|PowerPC|RISCV|Sparc|SPIRV|SystemZ|VE|WebAssembly|X86|XCore|M68k|Xtensa|Exegesis|BOLT|CFIVerify|Diff|OptDriver|WindowsManifest)")

# AddLLVM's llvm_config() links the LLVM dylib while this is on.
set(LLVM_LINK_LLVM_DYLIB OFF)

add_library(TilecLLVMStatic INTERFACE)
target_link_libraries(TilecLLVMStatic INTERFACE ${_tilec_llvm_static_libs})

function(_tilec_rewrite_link_interface target)
  get_target_property(_libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT _libs)
    return()
  endif()
  set(_new)
  foreach(l ${_libs})
    if(l STREQUAL "LLVM")
      list(APPEND _new TilecLLVMStatic)
    elseif(l MATCHES "libz3")
      # Only LLVM's optional Z3 constraint solver refers to it; nothing we
      # link uses that solver.
    else()
      list(APPEND _new ${l})
    endif()
  endforeach()
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${_new}")
endfunction()

foreach(t ${MLIR_EXPORTED_TARGETS} ${LLVM_AVAILABLE_LIBS})
  if(TARGET ${t})
    get_target_property(_imported ${t} IMPORTED)
    if(_imported)
      _tilec_rewrite_link_interface(${t})
    endif()
  endif()
endforeach()

# libstdc++ and libgcc go in statically too: the GPU machine's glibc is newer,
# but its libstdc++ need not carry every symbol version we were built with.
add_link_options(-static-libstdc++ -static-libgcc)
