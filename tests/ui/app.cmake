# Application-layer tests: the session, and the main window driven through its controls.
headscope_add_ui_test(test_session)
headscope_add_ui_test(test_mainwindow)
# test_mainwindow also runs the real headscope binary (--screenshot) through QProcess.
add_dependencies(test_mainwindow headscope)
target_compile_definitions(test_mainwindow PRIVATE HEADSCOPE_GUI_BINARY="$<TARGET_FILE:headscope>")
headscope_add_ui_test(test_wqk_views)
