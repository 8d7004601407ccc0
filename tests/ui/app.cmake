# Application-layer tests: the session, and the main window driven through its controls.
headscope_add_ui_test(test_session)
# Opening a model: the progress bar fed from the loading worker (issue 22).
headscope_add_ui_test(test_load_progress)
headscope_add_ui_test(test_mainwindow)
# test_mainwindow also runs the real headscope binary (--screenshot) through QProcess.
add_dependencies(test_mainwindow headscope)
target_compile_definitions(test_mainwindow PRIVATE HEADSCOPE_GUI_BINARY="$<TARGET_FILE:headscope>")
target_include_directories(test_mainwindow PRIVATE ${PROJECT_SOURCE_DIR}/tests)  # common/SessionFixtures.h
headscope_add_ui_test(test_wqk_views)
# Teaching (issue 7): lessons, presets, presentation mode, legibility at 1024 x 768.
headscope_add_ui_test(test_lessons_ui)
# Lessons at 1024 x 768 (issue 21): lesson 2's own picture, each step's view large enough to read.
headscope_add_ui_test(test_lesson_views)
# Real weights in the window (issue 9): a trained GPT-2 directory and a PyTorch layer.
headscope_add_ui_test(test_model_window)
target_compile_definitions(test_model_window PRIVATE HEADSCOPE_SHARED_MODELS_DIR="${HEADSCOPE_SHARED_MODELS_DIR}")
# Encoders in the window (issue 34): fill-mask at every [MASK], both-way attention, what each head looks at, pairs.
headscope_add_ui_test(test_encoder_window)
# Long inputs in the window (issue 35 item 4): one layer's maps kept, drawn downsampled, zoom and pan.
headscope_add_ui_test(test_long_input)
# Legible at any size (issue 7): spectra and status facts at projector sizes and large fonts.
headscope_add_ui_test(test_legibility)
# In front of a class (issue 7): lock hint, controls and head window at 2x, colour bars at 64 heads, lesson 1's M / M^-T step.
headscope_add_ui_test(test_classroom_ui)
# Edit > Undo and Redo of every configuration change.
headscope_add_ui_test(test_undo)
target_compile_definitions(test_undo PRIVATE HEADSCOPE_SHARED_MODELS_DIR="${HEADSCOPE_SHARED_MODELS_DIR}")
target_include_directories(test_undo PRIVATE ${PROJECT_SOURCE_DIR}/tests)  # common/SessionFixtures.h
# Small things a class trips on (issue 21): Ctrl+- and Ctrl+0, Alt keys, K/V heads following heads.
headscope_add_ui_test(test_class_keys)
# Knocking heads out (issue 23): the document, the strip and heatmap, the heads' menus, the dock's list.
headscope_add_ui_test(test_ablation_ui)
target_compile_definitions(test_ablation_ui PRIVATE HEADSCOPE_SHARED_MODELS_DIR="${HEADSCOPE_SHARED_MODELS_DIR}")
# The Training tab (issue 23): the worker thread, curves holding the trainer's numbers, pause, reset.
headscope_add_ui_test(test_training_tab)
# The Session as the document without a window (issue 24): undo, file name, modified flag, load/save, open-model policy.
headscope_add_ui_test(test_document)
target_compile_definitions(test_document PRIVATE HEADSCOPE_SHARED_MODELS_DIR="${HEADSCOPE_SHARED_MODELS_DIR}")
target_include_directories(test_document PRIVATE ${PROJECT_SOURCE_DIR}/tests)  # common/SessionFixtures.h
# LatestOnly, the one background helper (issue 24): stale results dropped, bursts coalesced. Header-only: QtCore alone.
add_executable(test_latest_only test_latest_only.cpp)
target_include_directories(test_latest_only PRIVATE ${PROJECT_SOURCE_DIR}/ui/views)
target_link_libraries(test_latest_only PRIVATE Qt6::Core Qt6::Test)
set_target_properties(test_latest_only PROPERTIES AUTOMOC ON)
add_test(NAME ui.test_latest_only COMMAND test_latest_only)
# One registry of views (issue 24): tabs, export and lessons read it; every entry is made and exported.
headscope_add_ui_test(test_view_registry)
# Lesson 7 (issue 23): trains in the Training tab to each step's condition, opens the model, knocks heads out.
headscope_add_ui_test(test_lesson7_ui)
# RoPE beyond the main views (issue 22 item 4): the head dialog's W_QK(Δ), the window's export at its Δ (llama-induction).
headscope_add_ui_test(test_rotary_window)
target_compile_definitions(test_rotary_window PRIVATE HEADSCOPE_SHARED_MODELS_DIR="${HEADSCOPE_SHARED_MODELS_DIR}")
# The Heads tab's words at projector sizes and 2x fonts, its thumbnails at full HD (issue 21).
headscope_add_ui_test(test_heads_tab_words)
target_compile_definitions(test_heads_tab_words PRIVATE HEADSCOPE_SHARED_MODELS_DIR="${HEADSCOPE_SHARED_MODELS_DIR}")
# The conversion-cache size setting (model/cache_layers) reaches the model the window opens (issue 22).
headscope_add_ui_test(test_cache_setting)
# headscope without a display (issue 21): one line and exit 2, not Qt's abort; --help and --version answered.
add_test(NAME ui.headscope_no_display
         COMMAND ${CMAKE_COMMAND} -DHEADSCOPE=$<TARGET_FILE:headscope> -P ${CMAKE_CURRENT_SOURCE_DIR}/no_display.cmake)
# The view base class (issue 24): a view follows the document through its virtual setters; hidden, it waits.
headscope_add_ui_test(test_attention_view)
# Plot titles and axis labels typeset like the lesson text (issue 21): the notation, every view, the SVG.
headscope_add_ui_test(test_typeset)
