# The main window driven through its controls.
headscope_ui_test_group(ui_window_tests LIBRARY headscope_ui TESTS
  # test_mainwindow also runs the real headscope binary (--screenshot) through QProcess.
  test_mainwindow
  test_wqk_views
  # Real weights in the window (issue 9): a trained GPT-2 directory and a PyTorch layer.
  test_model_window
  # Encoders in the window (issue 34): fill-mask at every [MASK], both-way attention, what each head looks at, pairs.
  test_encoder_window
  # Long inputs in the window (issue 35 item 4): one layer's maps kept, drawn downsampled, zoom and pan.
  test_long_input
  # Legible at any size (issue 7): spectra and status facts at projector sizes and large fonts.
  test_legibility
  # In front of a class (issue 7): lock hint, controls and head window at 2x, colour bars at 64 heads, lesson 1's M / M^-T step.
  test_classroom_ui
  # Edit > Undo and Redo of every configuration change.
  test_undo
  # Small things a class trips on (issue 21): Ctrl+- and Ctrl+0, Alt keys, K/V heads following heads.
  test_class_keys
  # Knocking heads out (issue 23): the document, the strip and heatmap, the heads' menus, the dock's list.
  test_ablation_ui
  # RoPE beyond the main views (issue 22 item 4): the head dialog's W_QK(Δ), the window's export at its Δ (llama-induction).
  test_rotary_window
  # The Heads tab's words at projector sizes and 2x fonts, its thumbnails at full HD (issue 21).
  test_heads_tab_words
)
add_dependencies(ui_window_tests headscope)
target_compile_definitions(ui_window_tests PRIVATE HEADSCOPE_GUI_BINARY="$<TARGET_FILE:headscope>")
# Teaching (issue 7): lessons, presets, presentation mode, legibility at 1024 x 768.
headscope_ui_test_group(ui_lesson_tests LIBRARY headscope_ui TESTS
  test_lessons_ui
  # Lessons at 1024 x 768 (issue 21): lesson 2's own picture, each step's view large enough to read.
  test_lesson_views
  # The Training tab (issue 23): the worker thread, curves holding the trainer's numbers, pause, reset.
  test_training_tab
  # Lesson 7 (issue 23): trains in the Training tab to each step's condition, opens the model, knocks heads out.
  test_lesson7_ui
)
# headscope without a display (issue 21): one line and exit 2, not Qt's abort; --help and --version answered.
add_test(NAME ui.headscope_no_display
         COMMAND ${CMAKE_COMMAND} -DHEADSCOPE=$<TARGET_FILE:headscope> -P ${CMAKE_CURRENT_SOURCE_DIR}/no_display.cmake)
