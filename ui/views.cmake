# Views over an Analysis: colour maps, heatmap grid and detail, spectra, export.
list(APPEND HEADSCOPE_UI_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/ColorMaps.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/Heatmap.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/GridShape.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/HeadGridView.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/HeadDetailView.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/ProjectionView.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/SpectrumView.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/Export.cpp
)
