# ctest "install: ...": `cmake --install` of the existing build into a fresh prefix (nothing is rebuilt),
# then checks what lands there: the binary (it runs), the docs, the Debian changelog and copyright, the
# Slurm scripts (executable), the Python package (imported from the prefix when pandas and matplotlib are
# there), and with help2man a man page per subcommand that `dcsim --help` lists, each its own; the installed
# slurm-sweep runs the installed dcsim (from PATH) and calls itself back in its merge job. cmake -DBUILD_DIR=... -DPREFIX=... -DMAN_PAGE=ON|OFF -P install_test.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
set(expected bin/dcsim share/doc/dcsim/README.md share/doc/dcsim/docs/architecture.md
    share/doc/dcsim/docs/scenario-reference.md share/doc/dcsim/docs/metrics.md
    share/doc/dcsim/scenarios/default.json share/doc/dcsim/scenarios/heatwave-facility-water.csv
    share/doc/dcsim/docs/ci.md share/doc/dcsim/changelog.gz share/doc/dcsim/copyright
    lib/dcsim/slurm-sweep lib/dcsim/slurm-local lib/python3/dist-packages/dcsim/__init__.py
    lib/python3/dist-packages/dcsim/outputs.py lib/python3/dist-packages/dcsim/plots.py)
execute_process(COMMAND ${BUILD_DIR}/tools/dcsim --help OUTPUT_VARIABLE help)
string(REGEX MATCHALL "\n  ([a-z]+)  " subcommands "${help}")
list(LENGTH subcommands n_subcommands)
if(n_subcommands LESS 10)
  message(FATAL_ERROR "dcsim --help lists ${n_subcommands} subcommands")
endif()
if(MAN_PAGE)
  list(APPEND expected share/man/man1/dcsim.1.gz)
  foreach(line IN LISTS subcommands)
    string(STRIP "${line}" sub)
    list(APPEND expected share/man/man1/dcsim-${sub}.1.gz)
  endforeach()
endif()
foreach(f IN LISTS expected)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "not installed: ${PREFIX}/${f}")
  endif()
endforeach()
execute_process(COMMAND ${PREFIX}/bin/dcsim --version RESULT_VARIABLE rc OUTPUT_VARIABLE version)
if(NOT rc EQUAL 0 OR NOT version MATCHES "^dcsim [0-9]+\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "the installed dcsim --version: exit ${rc}, printed \"${version}\"")
endif()
foreach(script slurm-sweep slurm-local)
  execute_process(COMMAND test -x ${PREFIX}/lib/dcsim/${script} RESULT_VARIABLE not_executable)
  if(NOT not_executable EQUAL 0)
    message(FATAL_ERROR "lib/dcsim/${script} is not executable")
  endif()
endforeach()
# The installed slurm-sweep, with no build/ beside it, takes the installed dcsim from PATH, and its merge job
# calls the installed slurm-sweep back to recover failed shards.
execute_process(COMMAND ${CMAKE_COMMAND} -E env "PATH=${PREFIX}/bin:$ENV{PATH}"
                        ${PREFIX}/lib/dcsim/slurm-sweep --shards 2 --out ${PREFIX}/sweep --dry-run -- s.json
                OUTPUT_VARIABLE dry RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT dry MATCHES "\n${PREFIX}/bin/dcsim sweep s\\.json --out ${PREFIX}/sweep --resume"
   OR NOT dry MATCHES "exec bash ${PREFIX}/lib/dcsim/slurm-sweep --recover ${PREFIX}/sweep ")
  message(FATAL_ERROR "the installed slurm-sweep does not run the installed dcsim and itself (exit ${rc}):\n${dry}")
endif()
if(MAN_PAGE)
  # Each page is its command's: dcsim-compare's title and NAME, and its own options (--junit).
  execute_process(COMMAND gzip -dc ${PREFIX}/share/man/man1/dcsim-compare.1.gz OUTPUT_VARIABLE man RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT man MATCHES "\\.TH DCSIM-COMPARE \"1\"" OR NOT man MATCHES "dcsim\\\\-compare \\\\- compare"
     OR NOT man MATCHES "junit" OR man MATCHES "--vary")
    message(FATAL_ERROR "dcsim-compare.1.gz is not dcsim compare's man page")
  endif()
  execute_process(COMMAND gzip -dc ${PREFIX}/share/man/man1/dcsim.1.gz OUTPUT_VARIABLE man)
  if(NOT man MATCHES "\\.TH DCSIM \"1\"" OR NOT man MATCHES "dcsim\\\\-sweep \\(1\\)")
    message(FATAL_ERROR "dcsim.1.gz is not dcsim's man page, or does not point to the subcommands' pages")
  endif()
endif()
# The Python package imports from the prefix (only where Debian's pandas and matplotlib are installed).
execute_process(COMMAND /usr/bin/python3 -c "import pandas, matplotlib" RESULT_VARIABLE no_pandas OUTPUT_QUIET ERROR_QUIET)
if(no_pandas EQUAL 0)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PREFIX}/lib/python3/dist-packages MPLBACKEND=Agg
                          /usr/bin/python3 -c "import dcsim; dcsim.find_output('.', 'summary.csv'); print(dcsim.__file__)"
                  OUTPUT_VARIABLE where RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT where MATCHES "^${PREFIX}/lib/python3/dist-packages/dcsim/__init__.py")
    message(FATAL_ERROR "the installed Python package does not import from the prefix: ${where}")
  endif()
else()
  message(STATUS "pandas or matplotlib missing: the installed Python package is not imported")
endif()
message(STATUS "installed under ${PREFIX}: ${expected}")
