# Lesson 7 and the Training tab in the room real screens give them (issue 21 item 3): each step's
# named plot on screen without scrolling, at least a stated size, every axis label whole.
add_executable(test_training_room test_training_room.cpp)
target_link_libraries(test_training_room PRIVATE headscope_ui Qt6::Test)
set_target_properties(test_training_room PROPERTIES AUTOMOC ON)
headscope_screen_test(test_training_room SCREENS 1024x768x1 1024x768x2 1280x720x1 1280x720x2 1920x1080x1 1920x1080x2)
