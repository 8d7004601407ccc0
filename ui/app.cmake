# The application layer: session, controls, main window, dialogs, settings, GUI benchmark.
list(APPEND HEADSCOPE_UI_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/AboutDialog.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/ControlsDock.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/ExportDialog.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/FormWidgets.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/GuiBenchmark.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/HeadDetailDialog.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/MainWindow.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/RecentFiles.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/Resources.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/Session.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/StatusPanel.cpp
)
