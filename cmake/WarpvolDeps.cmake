# Imported targets for the Debian-packaged dependencies. With WARPVOL_STATIC_DEPS the static archives are
# linked, so binaries built here run unchanged on a machine without those libraries or a package registry.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

if(WARPVOL_STATIC_DEPS)
  set(_wv_suffix .a)
else()
  set(_wv_suffix .so)
endif()

function(warpvol_find_lib target header libname)
  find_path(${target}_INCLUDE ${header} REQUIRED)
  find_library(${target}_LIB NAMES lib${libname}${_wv_suffix} ${libname} REQUIRED)
  add_library(${target} UNKNOWN IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION ${${target}_LIB}
                                              INTERFACE_INCLUDE_DIRECTORIES ${${target}_INCLUDE})
endfunction()

warpvol_find_lib(wv_cryptopp cryptopp/cryptlib.h cryptopp)
warpvol_find_lib(wv_argon2 argon2.h argon2)
warpvol_find_lib(wv_boost_po boost/program_options.hpp boost_program_options)
warpvol_find_lib(wv_libcrypto openssl/evp.h crypto)
# xxHash is used header-only (XXH_INLINE_ALL): nothing to link, static or not.
find_path(wv_xxhash_INCLUDE xxhash.h REQUIRED)
add_library(wv_xxhash INTERFACE IMPORTED GLOBAL)
set_target_properties(wv_xxhash PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${wv_xxhash_INCLUDE})
if(WARPVOL_STATIC_DEPS)
  set_property(TARGET wv_libcrypto PROPERTY INTERFACE_LINK_LIBRARIES ${CMAKE_DL_LIBS} Threads::Threads)
  add_link_options(-static-libstdc++ -static-libgcc)
endif()
