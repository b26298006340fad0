# `cmake --install build [--prefix P]`: bin/dcsim, the man page share/man/man1/dcsim.1 (built by help2man
# when it is found, Debian package help2man), and the docs in share/doc/dcsim (README.md, docs/*.md, the
# scenarios). `cd build && cpack -G DEB` packs the same into a Debian 12 package.
include(GNUInstallDirs)

install(TARGETS dcsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios DESTINATION ${CMAKE_INSTALL_DOCDIR})

find_program(DCSIM_HELP2MAN help2man)
if(DCSIM_HELP2MAN)
  # From `dcsim --help` and `dcsim --version`; rebuilt whenever the binary is.
  add_custom_command(
    OUTPUT ${CMAKE_BINARY_DIR}/dcsim.1
    COMMAND ${DCSIM_HELP2MAN} --no-info --section=1 --name "discrete-event simulator of GPU datacenters"
            --output ${CMAKE_BINARY_DIR}/dcsim.1 $<TARGET_FILE:dcsim>
    DEPENDS dcsim
    COMMENT "Generating the man page dcsim.1 (help2man)" VERBATIM)
  add_custom_target(dcsim_man ALL DEPENDS ${CMAKE_BINARY_DIR}/dcsim.1)
  install(FILES ${CMAKE_BINARY_DIR}/dcsim.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: the man page dcsim.1 is not built (install the Debian package help2man)")
endif()

# Depends: the Debian 12 packages of the shared libraries dcsim links (`dpkg -S` on `ldd build/tools/dcsim`;
# SimGrid brings Boost.Context, GSL and ns-3 along through its own package).
set(CPACK_PACKAGE_NAME dcsim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Seed c3c51dfa maintainers <maintainers@users.noreply.a-seed-c3c51dfa.example>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "discrete-event simulator of GPU datacenters (goodput and MFU of AI factories)")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "dcsim simulates AI factories (GPU racks, scale-out fabric, liquid cooling, power, failures, repairs and
checkpointing) on SimGrid and reports goodput, MFU, lost GPU-hours and costs, with sweeps, comparisons and
HTML reports.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libsimgrid3.32, libfmt9, libstdc++6 (>= 12), libgcc-s1, libc6 (>= 2.34)")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_GENERATOR DEB)
include(CPack)
