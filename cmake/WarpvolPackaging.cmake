# The Debian package (scripts/package.sh -> build/warpvol_VERSION_ARCH.deb): what `cmake --install` installs,
# under /usr. Shared-library dependencies come from dpkg-shlibdeps, so Depends names the exact runtime packages
# (libcrypto++8, libboost-program-options, the Qt 6 libraries, ...); what is loaded at run time rather than linked
# is listed by hand.
if(WARPVOL_STATIC_DEPS)
  return()  # a static build is made to be carried to a machine without the libraries, not to be distributed
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME warpvol)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "warpvol developers <warpvol@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "TrueCrypt/VeraCrypt-compatible volume tool (CLI, Qt GUI, FUSE mount)")
set(CPACK_PACKAGE_DESCRIPTION
    "warpvol creates, opens, mounts and re-encrypts VeraCrypt and TrueCrypt containers, bit for bit compatible with VeraCrypt, with a multi-core XTS engine and a CUDA engine where a GPU is present.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# fuse3: fusermount3 for the mount. dosfstools: mkfs.vfat for create's default filesystem (FAT, as VeraCrypt).
# libqt6svg6: the SVG icon plugin. qt6-qpa-plugins: the xcb/wayland platform
# plugins the window needs. None of them is linked, so dpkg-shlibdeps cannot find them.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fuse3, dosfstools")
if(WARPVOL_HAVE_GUI)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libqt6svg6, qt6-qpa-plugins")
endif()
# mkfs for `create --filesystem`, udisks2 for a normal user's mounts from the GUI, fusefat for FAT mounts without
# the kernel's vfat on a loop device.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "e2fsprogs, udisks2")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "exfatprogs, ntfs-3g, btrfs-progs, fusefat, mtools")
include(CPack)
