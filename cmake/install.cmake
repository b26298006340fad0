# `cmake --install build [--prefix P]`: bin/dcsim, the man pages share/man/man1/dcsim.1.gz and
# dcsim-SUB.1.gz per subcommand (built by help2man when it is found, Debian package help2man), the docs in
# share/doc/dcsim (README.md, docs/*.md, the scenarios, changelog.gz, copyright), the Slurm scripts in
# lib/dcsim and the Python package in lib/python3/dist-packages/dcsim. `cd build && cpack -G DEB` packs
# the same into a Debian 12 package, lintian clean (tools/package-deb builds it and runs lintian).
include(GNUInstallDirs)

install(TARGETS dcsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md"
        PATTERN "*.yml" PATTERN "debian" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Slurm scripts (tools/slurm-sweep finds dcsim on PATH when no build/ lies beside it) and the Python
# package (tools/python/dcsim: `import dcsim` with Debian's python3 when installed under /usr; another
# prefix: add DCSIM_PYTHON_DIR under it to PYTHONPATH).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/slurm-sweep ${PROJECT_SOURCE_DIR}/tools/slurm-local
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/dcsim)
set(DCSIM_PYTHON_DIR lib/python3/dist-packages CACHE STRING "where the dcsim Python package is installed, under the prefix")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tools/python/dcsim DESTINATION ${DCSIM_PYTHON_DIR}
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
# The Debian changelog and copyright (docs/debian/); lintian wants both, the changelog compressed.
find_program(DCSIM_GZIP gzip REQUIRED)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/debian/changelog)
execute_process(COMMAND ${DCSIM_GZIP} -9nc ${PROJECT_SOURCE_DIR}/docs/debian/changelog
                OUTPUT_FILE ${CMAKE_BINARY_DIR}/changelog.gz COMMAND_ERROR_IS_FATAL ANY)
install(FILES ${CMAKE_BINARY_DIR}/changelog.gz ${PROJECT_SOURCE_DIR}/docs/debian/copyright
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

find_program(DCSIM_HELP2MAN help2man)
if(DCSIM_HELP2MAN)
  # dcsim.1.gz and dcsim-SUB.1.gz for every subcommand, from the binary's help (cmake/man_pages.cmake);
  # rebuilt whenever the binary is.
  add_custom_command(
    OUTPUT ${CMAKE_BINARY_DIR}/man/dcsim.1.gz
    COMMAND ${CMAKE_COMMAND} -DDCSIM=$<TARGET_FILE:dcsim> -DHELP2MAN=${DCSIM_HELP2MAN} -DGZIP=${DCSIM_GZIP}
            -DOUT=${CMAKE_BINARY_DIR}/man -P ${PROJECT_SOURCE_DIR}/cmake/man_pages.cmake
    DEPENDS dcsim ${PROJECT_SOURCE_DIR}/cmake/man_pages.cmake
    COMMENT "Generating the man pages (help2man): dcsim.1 and one per subcommand" VERBATIM)
  add_custom_target(dcsim_man ALL DEPENDS ${CMAKE_BINARY_DIR}/man/dcsim.1.gz)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1.gz")
else()
  message(STATUS "help2man not found: the man pages are not built (install the Debian package help2man)")
endif()

# Depends: the Debian 12 packages of the shared libraries dcsim links (`dpkg -S` on `ldd build/tools/dcsim`;
# SimGrid brings Boost.Context, GSL and ns-3 along through its own package).
set(CPACK_PACKAGE_NAME dcsim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Seed c3c51dfa maintainers <maintainers@users.noreply.a-seed-c3c51dfa.example>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "discrete-event simulator of GPU datacenters (goodput and MFU of AI factories)")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "dcsim simulates AI factories (GPU racks, scale-out fabric, liquid cooling,
power, failures, repairs and checkpointing) on SimGrid and reports goodput,
MFU, lost GPU-hours and costs, with sweeps, comparisons and HTML reports.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libsimgrid3.32, libfmt9, zlib1g (>= 1:1.2.0), libzstd1 (>= 1.4.0), libstdc++6 (>= 12), libgcc-s1, libc6 (>= 2.34)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-pandas, python3-matplotlib, python3-zstandard")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON) # lintian: unstripped-binary-or-object
set(CPACK_GENERATOR DEB)
include(CPack)
