# headscope without a display (issue 21): DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM unset, Qt's
# xcb plugin would abort with a core dump. Expected: one line saying so and exit status 2; --help
# and --version still answered (exit 0).
#   cmake -DHEADSCOPE=path/to/headscope -P no_display.cmake
set(unset --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM)
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${unset} ${HEADSCOPE} --tab Training
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc STREQUAL "2")
  message(FATAL_ERROR "headscope without a display exited with '${rc}', not 2; stderr:\n${err}")
endif()
string(STRIP "${err}" err)
if(NOT err MATCHES "^headscope: no display: set DISPLAY, or run with QT_QPA_PLATFORM=offscreen" OR err MATCHES "\n")
  message(FATAL_ERROR "headscope without a display should say so in one line; stderr:\n${err}")
endif()
foreach(flag --help --version)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${unset} ${HEADSCOPE} ${flag}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc STREQUAL "0" OR out STREQUAL "")
    message(FATAL_ERROR "headscope ${flag} without a display exited with '${rc}' and printed '${out}' '${err}'")
  endif()
endforeach()
