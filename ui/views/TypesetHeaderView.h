#pragma once
// A table header whose section texts are typeset where they use the notation (TypesetText:
// "W_QK" as W with the subscript QK, as plot titles are); the section's frame is the style's,
// its size counts the typeset text. Text without the notation is QHeaderView's own.

#include <QHeaderView>

namespace headscope::ui {

class TypesetHeaderView : public QHeaderView {
    Q_OBJECT

public:
    explicit TypesetHeaderView(Qt::Orientation orientation, QWidget* parent = nullptr);

protected:
    void paintSection(QPainter* painter, const QRect& rect, int logical_index) const override;
    QSize sectionSizeFromContents(int logical_index) const override;

private:
    QString sectionText(int logical_index) const;
};

}  // namespace headscope::ui
