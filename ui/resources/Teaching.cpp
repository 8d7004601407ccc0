#include "Teaching.h"

#include <QFile>

#include "Resources.h"
#include "ViewRegistry.h"
#include "io/IoError.h"

namespace headscope::ui {

namespace {

const char* const kPresetFiles[] = {"paper-base", "bert-base", "gpt2-small", "single-head", "fixed-head-size", "tiny"};

QByteArray readResource(const QString& path, QString* error) {
    initResources();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error) *error = QStringLiteral("%1 is missing from the program's resources").arg(path);
        return {};
    }
    return file.readAll();
}

}  // namespace

std::optional<lessons::Lesson> loadLesson(int n, QString* error) {
    if (n < 1 || n > kLessonCount) {
        if (error) *error = QStringLiteral("there is no lesson %1: choose 1 to %2").arg(n).arg(kLessonCount);
        return std::nullopt;
    }
    const QString name = QStringLiteral("lesson-%1.json").arg(n);
    const QByteArray bytes = readResource(QStringLiteral(":/lessons/") + name, error);
    if (bytes.isEmpty()) return std::nullopt;
    return lessonFromText(bytes, name, error);
}

std::optional<lessons::Lesson> lessonFromText(const QByteArray& text, const QString& name, QString* error) {
    try {
        lessons::Lesson lesson = lessons::parseLesson(text.toStdString(), name.toStdString());
        lessons::checkViews(lesson, name.toStdString(), viewIds());  // the registry's, not a list of our own
        return lesson;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return std::nullopt;
    }
}

QList<lessons::Preset> loadPresets(QString* error) {
    QList<lessons::Preset> presets;
    for (const char* file : kPresetFiles) {
        const QString name = QStringLiteral("%1.json").arg(QLatin1String(file));
        QString why;
        const QByteArray bytes = readResource(QStringLiteral(":/presets/") + name, &why);
        try {
            if (bytes.isEmpty()) throw io::IoError(why.toStdString());
            presets << lessons::parsePreset(bytes.toStdString(), name.toStdString());
        } catch (const std::exception& e) {
            if (error) *error += (error->isEmpty() ? QString() : QStringLiteral(" ")) + QString::fromStdString(e.what());
        }
    }
    return presets;
}

QString stepHtml(const lessons::Lesson& lesson, int step, const std::map<std::string, std::string>& values) {
    const lessons::LessonStep& s = lesson.steps.at(static_cast<std::size_t>(step));
    QString html = QStringLiteral("<h2>%1</h2><p>%2</p>")
                       .arg(QString::fromStdString(lessons::fillTemplate(s.title, values)),
                            QString::fromStdString(lessons::fillTemplate(s.text, values)));
    if (!s.look_at.empty())
        html += QStringLiteral("<p><b>Look at:</b> %1</p>").arg(QString::fromStdString(lessons::fillTemplate(s.look_at, values)));
    return html;
}

}  // namespace headscope::ui
