#pragma once
// File > Recent files: the last few sessions opened or saved, kept in the settings.

#include <QObject>
#include <QStringList>

class QMenu;

namespace headscope::ui {

class RecentFiles : public QObject {
    Q_OBJECT

public:
    static constexpr int kMaxFiles = 8;

    // Fills menu (owned by the caller) and keeps it up to date.
    explicit RecentFiles(QMenu* menu, QObject* parent = nullptr);

    QStringList files() const;
    void add(const QString& path);     // moves it to the top
    void remove(const QString& path);  // e.g. after it failed to open
    void clear();

signals:
    void openRequested(const QString& path);

private:
    void rebuild();
    QMenu* menu_;
};

}  // namespace headscope::ui
