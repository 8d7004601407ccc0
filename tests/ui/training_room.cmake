# Lesson 7 and the Training tab in the room real screens give them (issue 21 item 3): each step's
# named plot on screen without scrolling, at least a stated size, every axis label whole.
add_executable(test_training_room test_training_room.cpp)
target_link_libraries(test_training_room PRIVATE headscope_ui Qt6::Test)
set_target_properties(test_training_room PROPERTIES AUTOMOC ON)
foreach(screen_case "1024;768;1" "1024;768;2" "1280;720;1" "1280;720;2" "1920;1080;1" "1920;1080;2")
  list(GET screen_case 0 w)
  list(GET screen_case 1 h)
  list(GET screen_case 2 s)
  set(name ui.test_training_room.${w}x${h}_scale${s})
  add_test(NAME ${name} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/xvfb_run.sh ${w} ${h} ${s} $<TARGET_FILE:test_training_room>)
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
