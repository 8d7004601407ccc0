# The views and export, on the views' library alone (QtTest, offscreen).
headscope_ui_test_group(ui_view_tests LIBRARY headscope_views TESTS
  test_color_maps
  test_head_grid
  test_head_grid_labels
  test_export
  test_head_detail
  # Exports of the table views whole (issue 21): every row in PNG, SVG and PDF, the rank table vector.
  test_export_tables
  # RoPE made visible (issue 22 item 4).
  test_rotary_views
  # Shapes to scale (issue 21): matrix panels keep cols:rows, or say how they are drawn.
  test_matrix_shapes
  # Colour-bar numbers apart and inside the plot in every view with a bar (issue 21).
  test_colour_bar_labels
)
# A group's program asked for a file it does not hold: exit status 2 and the files it does hold.
add_test(NAME ui.QtTestGroupNamesItsFiles
  COMMAND sh -c "\"$0\" test_no_such_file; echo \"exit status $?\"" $<TARGET_FILE:ui_view_tests>)
set_tests_properties(ui.QtTestGroupNamesItsFiles PROPERTIES PASS_REGULAR_EXPRESSION
  "TEST is one of: test_color_maps test_colour_bar_labels test_export test_export_tables test_head_detail test_head_grid test_head_grid_labels test_matrix_shapes test_rotary_views\nexit status 2\n")
# Views over the document, and the document without a window (issue 24).
headscope_ui_test_group(ui_document_tests LIBRARY headscope_ui TESTS
  test_token_views_ui
  test_label_placement
  test_rank_table
  test_session_frames
  test_result_store
  # The session, and opening a model: the progress bar fed from the loading worker (issue 22).
  test_session
  test_load_progress
  # The Session as the document without a window (issue 24): undo, file name, modified flag, load/save, open-model policy.
  test_document
  # LatestOnly, the one background helper (issue 24): stale results dropped, bursts coalesced.
  test_latest_only
  # One registry of views (issue 24): tabs, export and lessons read it; every entry is made and exported.
  test_view_registry
  # The view base class (issue 24): a view follows the document through its virtual setters; hidden, it waits.
  test_attention_view
  # Plot titles and axis labels typeset like the lesson text (issue 21): the notation, every view, the SVG.
  test_typeset
  # The conversion-cache size setting (model/cache_layers) reaches the model the window opens (issue 22).
  test_cache_setting
)
