#pragma once
// The lessons and presets HeadScope carries (resources/lessons, resources/presets, embedded
// through resources/headscope.qrc), read with core/lessons. A step's view settings become
// ViewOptions by applyViewSettings (ViewSettings.h, beside ViewOptions). A step's "show" is a
// view id of the registry (ViewRegistry.h); loadLesson fails on one it does not list.

#include <QList>
#include <QString>
#include <optional>

#include "Export.h"
#include "ViewOptions.h"
#include "ViewSettings.h"
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

// A step's title and filled text as one rich-text block (the lesson dock, the slides).
QString stepHtml(const lessons::Lesson& lesson, int step, const std::map<std::string, std::string>& values);

}  // namespace headscope::ui
