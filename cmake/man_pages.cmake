# Builds the man pages from dcsim's own help text (cmake -P, run by the dcsim_man target):
#   dcsim.1.gz from `dcsim --help`, and dcsim-SUB.1.gz for every subcommand that `dcsim --help` lists,
#   from `dcsim SUB --help` (its NAME line: the subcommand's one-line description from the same list).
# Each page is written by help2man and compressed with gzip -9n (no name or date in the header), as
# Debian's policy wants. cmake -DDCSIM=... -DHELP2MAN=... -DGZIP=... -DOUT=DIR -P man_pages.cmake
execute_process(COMMAND ${DCSIM} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${DCSIM} --help failed (${rc})")
endif()
string(REGEX MATCH "Subcommands:\n(.*)" section "${help}")
string(REGEX REPLACE "\n\n.*" "" section "${CMAKE_MATCH_1}")
string(REPLACE ";" "<semicolon>" section "${section}") # a description's ';' is not a list separator
string(REPLACE "\n" ";" lines "${section}")
set(subs "")
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
foreach(line IN LISTS lines)
  if(line MATCHES "^  ([a-z]+) +(.+)$")
    list(APPEND subs ${CMAKE_MATCH_1})
    string(REPLACE "<semicolon>" ";" desc_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
  endif()
endforeach()
if(NOT subs)
  message(FATAL_ERROR "no subcommands in `${DCSIM} --help`")
endif()

set(see_also "")
foreach(sub IN LISTS subs)
  string(APPEND see_also ".BR dcsim\\-${sub} (1),\n")
endforeach()
string(REGEX REPLACE ",\n$" "\n" see_also "${see_also}")
file(WRITE ${OUT}/see-also.h2m "[SEE ALSO]\n${see_also}Every command with examples: README.md in /usr/share/doc/dcsim.\n")

function(page name help_option title)
  execute_process(COMMAND ${HELP2MAN} --no-info --section=1 --name "${title}" --help-option=${help_option}
                          --version-option=--version --include ${OUT}/see-also.h2m ${DCSIM}
                  OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "help2man failed on ${name} (${rc})")
  endif()
  if(NOT name STREQUAL "dcsim")
    string(REPLACE "-" "\\-" escaped "${name}")
    string(TOUPPER "${name}" upper)
    string(REPLACE ".TH DCSIM " ".TH ${upper} " text "${text}")
    string(REPLACE ".SH NAME\ndcsim \\-" ".SH NAME\n${escaped} \\-" text "${text}")
  endif()
  file(WRITE ${OUT}/${name}.1 "${text}")
  execute_process(COMMAND ${GZIP} -9nf ${OUT}/${name}.1 RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip failed on ${name}.1")
  endif()
endfunction()

page(dcsim --help "discrete-event simulator of GPU datacenters")
foreach(sub IN LISTS subs)
  page(dcsim-${sub} "${sub} --help" "${desc_${sub}}")
endforeach()
file(REMOVE ${OUT}/see-also.h2m)
