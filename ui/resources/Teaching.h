#pragma once
// The lessons and presets HeadScope carries (resources/lessons, resources/presets, embedded
// through resources/headscope.qrc), read with core/lessons, and the small glue between a
// lesson step and the GUI's types: view settings <-> ViewOptions. A step's "show" is a view id
// of the registry (ViewRegistry.h); loadLesson fails on one it does not list.

#include <QList>
#include <QString>
#include <optional>

#include "Export.h"
#include "ViewOptions.h"
#include "io/SessionFile.h"
#include "lessons/Lesson.h"

namespace headscope::ui {

constexpr int kLessonCount = 7;

// Lesson n (1..kLessonCount) from the embedded files; nullopt with *error set otherwise.
std::optional<lessons::Lesson> loadLesson(int n, QString* error = nullptr);
// A lesson from its text, as loadLesson reads it (parsed, and every step's view in the registry).
std::optional<lessons::Lesson> lessonFromText(const QByteArray& text, const QString& name, QString* error = nullptr);

// Every embedded preset, in menu order; a damaged one is skipped and named in *error.
QList<lessons::Preset> loadPresets(QString* error = nullptr);

// options with the settings a file carries applied; and the settings of options.
ViewOptions applyViewSettings(ViewOptions options, const io::ViewSettings& settings);
io::ViewSettings viewSettings(const ViewOptions& options);

// A step's title and filled text as one rich-text block (the lesson dock, the slides).
QString stepHtml(const lessons::Lesson& lesson, int step, const std::map<std::string, std::string>& values);

}  // namespace headscope::ui
