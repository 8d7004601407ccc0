# Tests of the views and of export (QtTest, offscreen).
headscope_add_ui_test(test_color_maps)
headscope_add_ui_test(test_head_grid)
headscope_add_ui_test(test_export)
headscope_add_ui_test(test_head_detail)
headscope_add_ui_test(test_token_views_ui)
headscope_add_ui_test(test_label_placement)
headscope_add_ui_test(test_rank_table)
headscope_add_ui_test(test_session_frames)
