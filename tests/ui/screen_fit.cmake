# The window on real screens (issue 21): one QtTest, run by xvfb-run on an X screen of each
# size at QT_SCALE_FACTOR 1 and 2 (skipped, exit 77, where xvfb-run is missing).
add_executable(test_screen_fit test_screen_fit.cpp)
target_link_libraries(test_screen_fit PRIVATE headscope_ui Qt6::Test)
set_target_properties(test_screen_fit PROPERTIES AUTOMOC ON)
target_compile_definitions(test_screen_fit PRIVATE HEADSCOPE_SHARED_MODELS_DIR="${HEADSCOPE_SHARED_MODELS_DIR}")
foreach(screen_case "1024;768;1" "1024;768;2" "1280;720;1" "1280;720;2")
  list(GET screen_case 0 w)
  list(GET screen_case 1 h)
  list(GET screen_case 2 s)
  set(name ui.test_screen_fit.${w}x${h}_scale${s})
  add_test(NAME ${name} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/xvfb_run.sh ${w} ${h} ${s} $<TARGET_FILE:test_screen_fit>)
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
# Full HD and 1400 x 900 (issue 21): the first window centred where it fits, the Training tab's legend whole.
foreach(screen_case "1400;900;1" "1400;900;2" "1920;1080;1" "1920;1080;2")
  list(GET screen_case 0 w)
  list(GET screen_case 1 h)
  list(GET screen_case 2 s)
  set(name ui.test_screen_fit.${w}x${h}_scale${s})
  add_test(NAME ${name} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/xvfb_run.sh ${w} ${h} ${s} $<TARGET_FILE:test_screen_fit>
                                   firstWindowFits firstWindowIsCentredWhereItFits trainingLegendIsWhole)
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
