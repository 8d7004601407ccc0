# Tests of the views and of export (QtTest, offscreen).
set(HEADSCOPE_VIEW_TEST ON)
headscope_add_ui_test(test_color_maps)
headscope_add_ui_test(test_head_grid)
headscope_add_ui_test(test_export)
headscope_add_ui_test(test_head_detail)
# Exports of the table views whole (issue 21): every row in PNG, SVG and PDF, the rank table vector.
headscope_add_ui_test(test_export_tables)
set(HEADSCOPE_VIEW_TEST OFF)
headscope_add_ui_test(test_token_views_ui)
headscope_add_ui_test(test_label_placement)
headscope_add_ui_test(test_rank_table)
headscope_add_ui_test(test_session_frames)
# RoPE made visible (issue 22 item 4): views only, so it links headscope_views alone.
add_executable(test_rotary_views test_rotary_views.cpp)
target_link_libraries(test_rotary_views PRIVATE headscope_views Qt6::Test)
set_target_properties(test_rotary_views PROPERTIES AUTOMOC ON)
add_test(NAME ui.test_rotary_views COMMAND test_rotary_views)
set_tests_properties(ui.test_rotary_views PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 300)
# Shapes to scale (issue 21): matrix panels keep cols:rows, or say how they are drawn.
set(HEADSCOPE_VIEW_TEST ON)
headscope_add_ui_test(test_matrix_shapes)
# Colour-bar numbers apart and inside the plot in every view with a bar (issue 21).
headscope_add_ui_test(test_colour_bar_labels)
target_include_directories(test_colour_bar_labels PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})  # RotaryTestAnalysis.h
set(HEADSCOPE_VIEW_TEST OFF)
headscope_add_ui_test(test_result_store)
