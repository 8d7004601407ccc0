#pragma once
// What a view of a whole model (the Model tab, "Looks at") shows before a model is open: in place
// of an empty plot, a sentence saying what the view will show and a line of links, one for each way
// to open a model (File > Open model, ... from the Hugging Face cache) with its shortcut, both
// wrapped to the view (buttons of those words were wider than the tab at 2x). With a model open
// and no text run on it yet, it says that instead.

#include <QWidget>

class QAction;
class QLabel;

namespace headscope::ui {

class NoModelNote : public QWidget {
    Q_OBJECT

public:
    // sentence: what the view shows once a model is open ("to see every layer's heads").
    NoModelNote(const QString& sentence, QWidget* parent = nullptr);

    // The File menu's actions the links trigger; without them (a view alone) there are no links.
    void setOpenActions(QAction* folder, QAction* cache);
    // The sentence at the views' title size (ViewOptions::font_scale).
    void setFontScale(double scale);
    // A model open but no text run on it yet (its forward under way, or its text refused): the
    // sentence says so, without the links, instead of asking for a model.
    void setModelOpen(bool open);

    QLabel* sentence() const { return sentence_; }
    // The links: "folder" and "cache" (QLabel::linkActivated).
    QLabel* links() const { return links_; }

private:
    QString asking_;  // the sentence given: what the view shows once a model is open
    bool model_open_ = false;
    QLabel* sentence_ = nullptr;
    QLabel* links_ = nullptr;
    QAction* folder_ = nullptr;
    QAction* cache_ = nullptr;
};

}  // namespace headscope::ui
