#include "AboutDialog.h"

#include <Eigen/Core>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

#ifndef HEADSCOPE_VERSION
#define HEADSCOPE_VERSION "unknown"
#endif

namespace headscope::ui {

QString AboutDialog::versionsText() {
    return QStringLiteral("HeadScope %1 \u00B7 Qt %2 (built with %3) \u00B7 QCustomPlot %4 \u00B7 Eigen %5.%6.%7")
        .arg(QStringLiteral(HEADSCOPE_VERSION), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
             QStringLiteral(QCUSTOMPLOT_VERSION_STR))
        .arg(EIGEN_WORLD_VERSION)
        .arg(EIGEN_MAJOR_VERSION)
        .arg(EIGEN_MINOR_VERSION);
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("About HeadScope"));
    auto* icon = new QLabel;
    icon->setPixmap(QIcon(QStringLiteral(":/icons/headscope.svg")).pixmap(96, 96));
    icon->setAlignment(Qt::AlignTop);

    auto* text = new QLabel(tr(
        "<h2>HeadScope %1</h2>"
        "<p>Multi-head attention, made visible.</p>"
        "<p>Every head of one attention layer as a heatmap: who looks at whom in a sentence, "
        "the rank of each head's W<sub>Q</sub>W<sub>K</sub><sup>T</sup>, and proof that the fused, "
        "per-head and merged ways of computing attention give the same numbers.</p>"
        "<p style=\"color: #555\">%2</p>")
            .arg(QStringLiteral(HEADSCOPE_VERSION), versionsText().toHtmlEscaped()));
    text->setWordWrap(true);
    text->setTextInteractionFlags(Qt::TextBrowserInteraction);
    text->setMinimumWidth(420);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* row = new QHBoxLayout;
    row->addWidget(icon);
    row->addWidget(text, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(row);
    layout->addWidget(buttons);
}

}  // namespace headscope::ui
