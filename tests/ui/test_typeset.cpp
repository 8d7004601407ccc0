// Plot titles and axis labels typeset like the lesson text (issue 21: "plot titles show raw
// W_i^Q while lesson text typesets it"):
//  - the notation: "W_i^Q" -> W<sub>i</sub><sup>Q</sup>, braces, "W_QK,i", "M^-T", escapes, text
//    without notation unchanged, < & > escaped, names like "tiny_gpt2" left alone;
//  - every plot title, panel title and axis label of every central tab, the spectra/rank dock
//    and the head window, with the demo (weights and logits): none shows the raw notation ("_" or "^" followed by a
//    letter or digit) -- each is drawn typeset (TypesetTitle / TypesetAxis) or has none, colour
//    bars' labels, legend entries, notes on plots and the rank table's column titles included;
//  - on the same walk, every other text a reader sees: labels (the Costs page, the RoPE note,
//    the spectra dock's title bar, the controls' form labels), check boxes and buttons, tabs, dock
//    titles, menu entries, and every tool tip as hovering shows it (widgets', tabs', header
//    sections'): typeset or free of the notation; the Costs page's plain text keeps it as written;
//  - the Circuits view's SVG keeps the typeset pieces as separate text runs (W, then i, then Q)
//    and holds no bitmap.
#include <QAbstractButton>
#include <QAction>
#include <QCheckBox>
#include <QSpinBox>
#include <QStyleOptionButton>
#include <QApplication>
#include <QGroupBox>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QTabBar>
#include <QTextDocument>
#include <QTextEdit>
#include <QToolTip>
#include <QDockWidget>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include "QtTestGroup.h"

#include "ControlsDock.h"
#include "CostView.h"
#include "DockTitleBar.h"
#include "Export.h"
#include "FittedLabel.h"
#include "HeadDetailDialog.h"
#include "LessonDock.h"
#include "MainWindow.h"
#include "StatusPanel.h"
#include "TypesetAxis.h"
#include "TypesetHeaderView.h"
#include "TypesetItemText.h"
#include "TypesetLegendItem.h"
#include "TypesetText.h"
#include "TypesetTitle.h"
#include "TypesetToolTips.h"
#include "WindowTestSupport.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

// The raw notation as a reader would see it printed: "_" or "^" followed by a letter or digit.
bool looksRaw(const QString& shown) {
    static const QRegularExpression raw(QStringLiteral("[_^][\\p{L}\\p{N}{-]"));
    return shown.contains(raw);
}

// What a title or an axis label puts on screen: the typeset text's letters (its marks are
// drawn as sub/superscripts), or the text as written when it is drawn plain.
QString shownTitle(QCPTextElement* title) {
    return qobject_cast<TypesetTitle*>(title) ? typeset::plain(title->text()) : title->text();
}
QString shownLabel(QCPAxis* axis) {
    return qobject_cast<TypesetAxis*>(axis) ? typeset::plain(axis->label()) : axis->label();
}

// Every visible title and axis label of plot still showing the raw notation, described.
QStringList rawTexts(QCustomPlot* plot, const QString& where) {
    QStringList found;
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
        if (!element || !element->realVisibility()) continue;
        if (auto* title = qobject_cast<QCPTextElement*>(element); title && looksRaw(shownTitle(title)))
            found << QStringLiteral("%1: title \"%2\"").arg(where, title->text());
        if (auto* entry = qobject_cast<QCPPlottableLegendItem*>(element); entry && entry->plottable()) {
            const QString name = entry->plottable()->name();
            if (looksRaw(qobject_cast<TypesetLegendItem*>(entry) ? typeset::plain(name) : name))
                found << QStringLiteral("%1: legend entry \"%2\"").arg(where, name);
        }
        if (auto* scale = qobject_cast<QCPColorScale*>(element); scale && looksRaw(shownLabel(scale->axis())))
            found << QStringLiteral("%1: colour bar \"%2\"").arg(where, scale->axis()->label());
    }
    for (int i = 0; i < plot->itemCount(); ++i) {  // notes on the plot ("rank ≤ 8 = min(d_v, d_model)")
        auto* text = qobject_cast<QCPItemText*>(plot->item(i));
        if (!text || !text->realVisibility()) continue;
        if (looksRaw(qobject_cast<TypesetItemText*>(text) ? typeset::plain(text->text()) : text->text()))
            found << QStringLiteral("%1: note \"%2\"").arg(where, text->text());
    }
    for (QCPAxisRect* rect : plot->axisRects()) {
        if (!rect->realVisibility()) continue;
        for (QCPAxis* axis : rect->axes())
            if (axis->visible() && looksRaw(shownLabel(axis)))
                found << QStringLiteral("%1: axis label \"%2\"").arg(where, axis->label());
    }
    return found;
}

QStringList rawTextsIn(QWidget* widget, const QString& where) {
    QStringList found;
    for (QCustomPlot* plot : widget->findChildren<QCustomPlot*>()) {
        if (!plot->isVisibleTo(widget)) continue;
        plot->replot(QCustomPlot::rpImmediateRefresh);
        found << rawTexts(plot, where + QLatin1Char('/') + plot->objectName());
    }
    for (QTableView* table : widget->findChildren<QTableView*>()) {  // the rank table's column titles
        if (!table->isVisibleTo(widget) || !table->model()) continue;
        const bool typeset_header = qobject_cast<TypesetHeaderView*>(table->horizontalHeader()) != nullptr;
        for (int c = 0; c < table->model()->columnCount(); ++c) {
            const QString text = table->model()->headerData(c, Qt::Horizontal).toString();
            if (looksRaw(typeset_header ? typeset::plain(text) : text))
                found << QStringLiteral("%1/%2: column title \"%3\"").arg(where, table->objectName(), text);
        }
    }
    return found;
}

// What a label, a tool tip or a title bar shows: rich text as its words read (sub/superscripts
// drawn as such), plain text as written, a mnemonic's "&" dropped; a FittedLabel draws its
// notation typeset.
QString shownText(const QString& text, bool rich) {
    if (rich) {
        QTextDocument doc;
        doc.setHtml(text);
        return doc.toPlainText();
    }
    return QString(text).remove(QRegularExpression(QStringLiteral("&(?=[^&])")));
}
QString shownText(const QLabel* label) {
    if (qobject_cast<const FittedLabel*>(label)) return typeset::plain(label->text());
    const bool rich = label->textFormat() == Qt::RichText || (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text()));
    return shownText(label->text(), rich);
}

// The rightmost column of widget's ink, drawn on white (-1: none); a disabled widget's grey counts.
int inkRight(QWidget* widget) {
    QImage image(widget->size(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    widget->render(&image);
    int right = -1;
    for (int x = 0; x < image.width(); ++x)
        for (int y = 0; y < image.height(); ++y)
            if (qGray(image.pixel(x, y)) < 200) right = x;
    return right;
}

// Whether a check box draws its text typeset: its ink ends well short of where the text as
// written would (a subscript is smaller and has no "_"), as the status line's facts are checked.
bool drawsTypeset(QCheckBox* box) {
    const int right = inkRight(box);
    QStyleOptionButton option;
    option.initFrom(box);
    const int start = box->style()->subElementRect(QStyle::SE_CheckBoxContents, &option, box).left();
    double raw = 0;
    for (const QString& line : box->text().split(QLatin1Char('\n')))
        raw = std::max(raw, QFontMetricsF(box->font()).horizontalAdvance(QString(line).remove(QLatin1Char('&'))));
    return right > start + 0.5 * raw && right < start + 0.97 * raw;
}

// The tool tip shown when the pointer rests at pos in widget, as it reads ("" for none).
QString hoverToolTip(QWidget* widget, const QPoint& pos) {
    QToolTip::hideText();
    QHelpEvent help(QEvent::ToolTip, pos, widget->mapToGlobal(pos));
    QApplication::sendEvent(widget, &help);
    const QString tip = QToolTip::isVisible() ? QToolTip::text() : QString();
    QToolTip::hideText();
    return shownText(tip, Qt::mightBeRichText(tip));
}

// Every text on the visible widgets of window with raw notation, described: labels (the Costs
// page, the RoPE note, dock title bars included), buttons, group titles, tabs, menu entries,
// and, with hover, each tool tip as hovering shows it (widgets', tabs', header sections').
QStringList rawWidgetTexts(QWidget* window, bool hover = true) {
    QStringList found;
    // Raw: what is shown still holds notation the parser would typeset ("d_model"; not a name
    // such as NumPy's "matrix_rank").
    const auto check = [&](const QString& shown, const QString& what, const QString& text) {
        if (typeset::hasNotation(shown)) found << QStringLiteral("%1 \"%2\"").arg(what, text);
    };
    for (QWidget* widget : window->findChildren<QWidget*>()) {
        if (!widget->isVisible()) continue;
        const QString name = QStringLiteral("%1 %2").arg(QLatin1String(widget->metaObject()->className()), widget->objectName());
        if (auto* label = qobject_cast<QLabel*>(widget)) check(shownText(label), name + QStringLiteral(": text"), label->text());
        if (auto* button = qobject_cast<QAbstractButton*>(widget)) {
            auto* box = qobject_cast<QCheckBox*>(button);
            const bool typeset_box = box && typeset::hasNotation(QString(box->text()).remove(QLatin1Char('&'))) && drawsTypeset(box);
            if (!typeset_box) check(shownText(button->text(), false), name + QStringLiteral(": text"), button->text());
        }
        if (auto* page = qobject_cast<QTextEdit*>(widget); page && page->isReadOnly())  // rich text pages the program writes
            check(page->toPlainText(), name + QStringLiteral(": page"), page->toPlainText().left(120));
        if (auto* group = qobject_cast<QGroupBox*>(widget)) check(shownText(group->title(), false), name + QStringLiteral(": title"), group->title());
        if (auto* dock = qobject_cast<QDockWidget*>(widget); dock && !dock->titleBarWidget())  // Qt's own bar draws the title
            check(dock->windowTitle(), name + QStringLiteral(": dock title"), dock->windowTitle());
        if (auto* bar = qobject_cast<QTabBar*>(widget)) {
            for (int i = 0; i < bar->count(); ++i) {
                check(shownText(bar->tabText(i), false), name + QStringLiteral(": tab"), bar->tabText(i));
                if (hover && !bar->tabToolTip(i).isEmpty())
                    check(hoverToolTip(bar, bar->tabRect(i).center()), name + QStringLiteral(": tab's tool tip"), bar->tabToolTip(i));
            }
        }
        if (auto* header = qobject_cast<QHeaderView*>(widget); hover && header && header->model()) {
            for (int i = 0; i < header->count(); ++i) {
                const QString tip = header->model()->headerData(i, header->orientation(), Qt::ToolTipRole).toString();
                if (tip.isEmpty() || header->isSectionHidden(i)) continue;
                const int middle = header->sectionViewportPosition(i) + header->sectionSize(i) / 2;
                const QPoint at = header->orientation() == Qt::Horizontal ? QPoint(middle, header->height() / 2) : QPoint(header->width() / 2, middle);
                check(hoverToolTip(header->viewport(), at), name + QStringLiteral(": section's tool tip"), tip);
            }
        }
        if (hover && !widget->toolTip().isEmpty())
            check(hoverToolTip(widget, widget->rect().center()), name + QStringLiteral(": tool tip"), widget->toolTip());
    }
    if (auto* main = qobject_cast<QMainWindow*>(window); main && main->menuBar()) {
        for (QMenu* menu : main->menuBar()->findChildren<QMenu*>())
            for (QAction* action : menu->actions())
                if (action->isVisible()) check(shownText(action->text(), false), QStringLiteral("menu entry"), action->text());
    }
    return found;
}

// The SVG's text runs in document order, and how many bitmaps over a tenth of the page each way
// it embeds (a colour bar's gradient is a thin one; a view or a title as a bitmap is not).
QStringList svgTextRuns(const QString& path, bool* ok, int* images) {
    QFile file(path);
    *ok = file.open(QIODevice::ReadOnly);
    *images = 0;
    QStringList runs;
    if (!*ok) return runs;
    QXmlStreamReader xml(&file);
    QSizeF page;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement()) continue;
        const auto attributes = xml.attributes();
        if (xml.name() == QLatin1String("svg")) {
            const QStringList box = attributes.value(QLatin1String("viewBox")).toString().split(QLatin1Char(' '));
            if (box.size() == 4) page = QSizeF(box[2].toDouble(), box[3].toDouble());
        }
        if (xml.name() == QLatin1String("image") && attributes.value(QLatin1String("width")).toDouble() > 0.1 * page.width() &&
            attributes.value(QLatin1String("height")).toDouble() > 0.1 * page.height())
            ++*images;
        if (xml.name() == QLatin1String("text")) runs << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    }
    *ok = !xml.hasError() && !page.isEmpty();
    return runs;
}

}  // namespace

class TestTypeset : public QObject {
    Q_OBJECT

private slots:
    void notationToHtml_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("body");  // the paragraph's content
        QTest::newRow("sub and sup") << "W_i^Q" << "W<sub>i</sub><sup>Q</sup>";
        QTest::newRow("word subscript") << "d_model" << "d<sub>model</sub>";
        QTest::newRow("head index joins") << "W_QK,i = W_i^Q (W_i^K)ᵀ"
                                          << "W<sub>QK,i</sub> = W<sub>i</sub><sup>Q</sup> (W<sub>i</sub><sup>K</sup>)ᵀ";
        QTest::newRow("comma then space ends") << "min(d_k, d_model)" << "min(d<sub>k</sub>, d<sub>model</sub>)";
        QTest::newRow("braces") << "X_{src tokens}^{-1}" << "X<sub>src tokens</sub><sup>-1</sup>";
        QTest::newRow("minus T") << "M^-T and M^T" << "M<sup>-T</sup> and M<sup>T</sup>";
        QTest::newRow("raised marks stay out") << "d_model² and W_i^Kᵀ" << "d<sub>model</sub>² and W<sub>i</sub><sup>K</sup>ᵀ";
        QTest::newRow("digits") << "(X W_1) W_2" << "(X W<sub>1</sub>) W<sub>2</sub>";
        QTest::newRow("after a closing bracket") << "(W_i^K)^T" << "(W<sub>i</sub><sup>K</sup>)<sup>T</sup>";
        QTest::newRow("escapes") << "a\\_b, 2\\^3, c\\\\d, W\\_i" << "a_b, 2^3, c\\d, W_i";
        QTest::newRow("html escaped") << "a < b & c > d_k" << "a &lt; b &amp; c &gt; d<sub>k</sub>";
        QTest::newRow("names stay") << "tiny_gpt2 rope_head_N" << "tiny_gpt2 rope_head_N";
        QTest::newRow("loose marks stay") << "a _ b, x^ , W_ , _k" << "a _ b, x^ , W_ , _k";
        QTest::newRow("no notation") << "head 3 · key" << "head 3 · key";
    }
    void notationToHtml() {
        QFETCH(QString, text);
        QFETCH(QString, body);
        const QString html = typeset::toHtml(text);
        const QString open = QStringLiteral("<p align=\"center\" style=\"margin:0; white-space:pre\">");
        QCOMPARE(html, open + body + QStringLiteral("</p>"));
        QCOMPARE(typeset::hasNotation(text), body.contains(QStringLiteral("<su")));
    }

    void linesAlignmentAndPlainText() {
        QCOMPARE(typeset::toHtml(QStringLiteral("q_i\n\nk_j"), Qt::AlignLeft),
                 QStringLiteral("<p align=\"left\" style=\"margin:0; white-space:pre\">q<sub>i</sub></p>"
                                "<p align=\"left\" style=\"margin:0; white-space:pre\">&nbsp;</p>"
                                "<p align=\"left\" style=\"margin:0; white-space:pre\">k<sub>j</sub></p>"));
        QCOMPARE(typeset::plain(QStringLiteral("W_QK,i = W_i^Q\nd_{model}, a\\_b")), QStringLiteral("WQK,i = WiQ\ndmodel, a_b"));
        QCOMPARE(typeset::plain(QStringLiteral("tiny_gpt2")), QStringLiteral("tiny_gpt2"));
    }

    // Rich text for labels and tool tips, and a label's mnemonic: the same parser's pieces.
    void richTextAndMnemonics() {
        QCOMPARE(typeset::richText(QStringLiteral("x_i W_QK,i x_j\nd_model < 2")),
                 QStringLiteral("x<sub>i</sub> W<sub>QK,i</sub> x<sub>j</sub><br>d<sub>model</sub> &lt; 2"));
        QCOMPARE(typeset::richTextIfNotation(QStringLiteral("tiny_gpt2 & co")), QStringLiteral("tiny_gpt2 & co"));
        QCOMPARE(typeset::mnemonicRichText(QStringLiteral("d_&model")), QStringLiteral("d<sub><u>m</u>odel</sub>"));
        QCOMPARE(typeset::mnemonicRichText(QStringLiteral("&d_v")), QStringLiteral("<u>d</u><sub>v</sub>"));
        QCOMPARE(typeset::mnemonicRichText(QStringLiteral("Lo&ck d_k = d_v")),
                 QStringLiteral("Lo<u>c</u>k d<sub>k</sub> = d<sub>v</sub>"));
        QCOMPARE(typeset::mnemonicRichText(QStringLiteral("a && b_k, W\\_&i^Q")),
                 QStringLiteral("a &amp; b<sub>k</sub>, W_<u>i</u><sup>Q</sup>"));  // "i^Q": i is a name
        QCOMPARE(typeset::mnemonicRichText(QStringLiteral("W_{a b}^&Q")), QStringLiteral("W<sub>a b</sub><sup><u>Q</u></sup>"));
    }

    // A tool tip in the notation shows typeset; toolTip() keeps it as written; one marked as data
    // (a model's path) shows as written.
    void toolTipsTypesetUnlessVerbatim() {
        TypesetToolTips::install();
        QWidget window;
        auto* formula = new QLabel(QStringLiteral("formula"), &window);
        auto* path = new QLabel(QStringLiteral("path"), &window);
        path->move(0, 40);
        formula->setToolTip(QStringLiteral("rank of W_QK,i ≤ min(d_k, d_model)"));
        path->setToolTip(QStringLiteral("/models/a_b"));
        TypesetToolTips::setVerbatim(path);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(hoverToolTip(formula, formula->rect().center()), QStringLiteral("rank of WQK,i ≤ min(dk, dmodel)"));
        QCOMPARE(formula->toolTip(), QStringLiteral("rank of W_QK,i ≤ min(d_k, d_model)"));
        QCOMPARE(hoverToolTip(path, path->rect().center()), QStringLiteral("/models/a_b"));
    }

    // The Costs page shows its notation typeset; its plain text (the clipboard's, the tests')
    // keeps the notation as written.
    void costsTypesetOnScreenPlainInCopies() {
        Config config;
        config.heads = 4;
        const Analysis a = analyze(config, false);
        CostView view;
        view.setAnalysis(std::shared_ptr<const Analysis>(std::shared_ptr<const Analysis>(), &a));
        view.replotNow();
        QVERIFY2(view.html().contains(QStringLiteral("factored W<sub>i</sub><sup>Q</sup>, W<sub>i</sub><sup>K</sup>")), qPrintable(view.html()));
        QVERIFY2(view.html().contains(QStringLiteral("d<sub>model</sub>")), qPrintable(view.html()));
        QTextDocument shown;
        shown.setHtml(view.html());
        QVERIFY2(!looksRaw(shown.toPlainText()), qPrintable(shown.toPlainText()));
        QVERIFY2(view.plainText().contains(QStringLiteral("factored W_i^Q, W_i^K")), qPrintable(view.plainText()));
        QVERIFY2(view.plainText().contains(QStringLiteral("2 · d_model · d_k")), qPrintable(view.plainText()));
    }

    // Typeset text is laid out by its letters (narrower than the raw marks) and its lines.
    void sizesFollowTheTypesetText() {
        QFont font(QStringLiteral("DejaVu Sans"));
        font.setPixelSize(20);
        const QSizeF one = typeset::size(QStringLiteral("W_QK,i = W_i^Q (W_i^K)ᵀ"), font);
        const QSizeF two = typeset::size(QStringLiteral("W_QK,i = W_i^Q (W_i^K)ᵀ\nd_model"), font);
        QVERIFY(one.width() > 0 && one.width() < QFontMetricsF(font).horizontalAdvance(QStringLiteral("W_QK,i = W_i^Q (W_i^K)ᵀ")));
        QVERIFY2(two.height() > 1.8 * QFontMetricsF(font).height() && two.height() < 3 * one.height(),
                 qPrintable(QStringLiteral("%1 / %2").arg(two.height()).arg(one.height())));
        // Titles take no more room than the raw notation did: as tall (to a pixel), never wider.
        for (const QString& text : {QStringLiteral("W_i^Q"), QStringLiteral("Head 0: W_QK,i ≤ min(d_k, d_model)\n(X W_1) W_2")}) {
            const QRect raw = QFontMetrics(font).boundingRect(0, 0, 0, 0, Qt::TextDontClip, text);
            const QSizeF typeset = typeset::size(text, font);
            QVERIFY2(std::abs(typeset.height() - raw.height()) <= 1 && typeset.width() <= raw.width(),
                     qPrintable(QStringLiteral("%1: typeset %2 x %3, raw %4 x %5").arg(text).arg(typeset.width())
                                    .arg(typeset.height()).arg(raw.width()).arg(raw.height())));
        }
    }

    // Laid out once and kept (a repaint reuses it): the same text in another size, colour or
    // alignment is laid out and drawn as that one, never as the text drawn before it.
    void keptLayoutsFollowFontColourAndAlignment() {
        QFont small(QStringLiteral("DejaVu Sans")), large = small, bold = small;
        small.setPixelSize(12);
        large.setPixelSize(24);
        bold.setPixelSize(12);
        bold.setBold(true);
        const QString text = QStringLiteral("W_i^Q W_i^K");
        const QSizeF at_12 = typeset::size(text, small), at_24 = typeset::size(text, large);
        QVERIFY2(at_24.width() > 1.7 * at_12.width(),
                 qPrintable(QStringLiteral("%1 vs %2").arg(at_24.width()).arg(at_12.width())));
        QVERIFY(typeset::size(text, bold).width() > at_12.width());
        QCOMPARE(typeset::size(text, small), at_12);
        // Drawn in red, then in blue, then left- and right-aligned on a wider line: each as asked.
        const auto drawn = [&](const QColor& colour, Qt::Alignment align) {
            QImage image(300, 80, QImage::Format_ARGB32);
            image.fill(Qt::white);
            QPainter painter(&image);
            typeset::draw(&painter, text + QStringLiteral("\nW"), large, colour, align);
            painter.end();
            return image;
        };
        const auto has = [](const QImage& image, auto test) {
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    if (test(image.pixelColor(x, y))) return true;
            return false;
        };
        const auto reddish = [](const QColor& c) { return c.red() > 200 && c.blue() < 80 && c.green() < 80; };
        const auto bluish = [](const QColor& c) { return c.blue() > 200 && c.red() < 80 && c.green() < 80; };
        const QImage red = drawn(Qt::red, Qt::AlignHCenter), blue = drawn(Qt::blue, Qt::AlignHCenter);
        QVERIFY(has(red, reddish) && !has(red, bluish));
        QVERIFY(has(blue, bluish) && !has(blue, reddish));
        const auto leftmost_ink = [](const QImage& image, int from_y) {
            for (int x = 0; x < image.width(); ++x)
                for (int y = from_y; y < image.height(); ++y)
                    if (image.pixelColor(x, y).lightness() < 128) return x;
            return image.width();
        };
        const int second_line = int(std::ceil(typeset::size(QStringLiteral("W"), large).height()));
        QVERIFY(leftmost_ink(drawn(Qt::black, Qt::AlignRight), second_line) >
                leftmost_ink(drawn(Qt::black, Qt::AlignLeft), second_line) + 20);
    }

    // Every tab, the spectra and rank dock and the head window: no raw notation on screen.
    void everyViewShowsItsNotationTypeset() {
        MainWindow window(noSettings());
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.waitForCompleteUpdate(60000));
        QStringList raw, widget_texts;
        QTabWidget* tabs = window.centralTabs();
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            settle();
            QVERIFY(window.waitForCompleteUpdate(60000));
            settle();
            raw << rawTextsIn(tabs->currentWidget(), tabs->tabText(i).remove(QLatin1Char('&')));
            widget_texts << rawWidgetTexts(&window);
        }
        // The logits (the registry's "logits" view, on the Heads tab): "logit / √d_k" on the bar.
        auto* logits = window.findChild<QAction*>(QStringLiteral("show_logits_action"));
        QVERIFY(logits);
        logits->trigger();
        QVERIFY(logits->isChecked());
        tabs->setCurrentIndex(0);
        settle();
        QVERIFY(window.waitForCompleteUpdate(60000));
        settle();
        raw << rawTextsIn(tabs->currentWidget(), QStringLiteral("logits"));
        for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
            if (dock->isHidden()) continue;
            raw << rawTextsIn(dock, dock->windowTitle());
        }
        window.showHead(1);
        HeadDetailDialog* dialog = window.headDetail();
        QVERIFY(dialog && dialog->isVisible());
        settle();
        QVERIFY(window.waitForCompleteUpdate(60000));
        settle();
        raw << rawTextsIn(dialog, QStringLiteral("head window"));
        QVERIFY2(raw.isEmpty(), qPrintable(raw.join(QLatin1Char('\n'))));
        widget_texts << rawWidgetTexts(dialog);
        dialog->close();
        // Every lesson step (the lesson's text, the step's view and the docks it arranges).
        for (int n = 1; n <= 7; ++n) {
            QString error;
            QVERIFY2(window.openLesson(n, &error), qPrintable(error));
            for (int k = 0; k < window.lessonDock()->stepCount(); ++k) {
                window.lessonDock()->goToStep(k);
                QCoreApplication::processEvents();  // shown and hidden as the step says (no layout needed to read texts)
                widget_texts << rawWidgetTexts(&window, false).replaceInStrings(QRegularExpression(QStringLiteral("^")),
                                                                         QStringLiteral("lesson %1 step %2: ").arg(n).arg(k + 1));
            }
        }
        widget_texts.removeDuplicates();
        QVERIFY2(widget_texts.isEmpty(), qPrintable(widget_texts.join(QLatin1Char('\n'))));
    }

    // As on a full HD screen (the tests' offscreen screen is 800 x 600, where the spectra dock is
    // a tab with a short title): the spectra dock's own title bar shows "Spectra and ranks of
    // W_QK and W_OV" typeset, its title stays the notation, its View menu entry is the short name;
    // nothing else in the window shows raw notation either.
    void wideWindowTypesetsTheSpectraDockTitle() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.layOutAsOnScreen(QSize(1920, 1080));
        QVERIFY(window.waitForCompleteUpdate(60000));
        settle();
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("spectrum_dock"));
        QVERIFY(dock && dock->isVisible());
        QVERIFY2(dock->windowTitle().contains(QStringLiteral("W_QK")), qPrintable(dock->windowTitle()));
        auto* bar = qobject_cast<DockTitleBar*>(dock->titleBarWidget());
        QVERIFY(bar && bar->isVisible() && bar->height() > 0);
        QVERIFY2(bar->shownTitle().contains(QStringLiteral("W<sub>QK</sub>")), qPrintable(bar->shownTitle()));
        QCOMPARE(dock->toggleViewAction()->text(), QStringLiteral("Spectra and ranks"));
        const QStringList raw = rawWidgetTexts(&window);
        QVERIFY2(raw.isEmpty(), qPrintable(raw.join(QLatin1Char('\n'))));
        // Hidden above a lesson strip, the bar takes no room; shown again, it is back.
        setDockTitleBarHidden(dock, true);
        QCOMPARE(dock->titleBarWidget(), bar);
        QCOMPARE(bar->sizeHint(), QSize(0, 0));
        setDockTitleBarHidden(dock, false);
        QVERIFY(bar->sizeHint().height() > 0);
        // A configuration that cannot be computed: its message ("d_model 64 is not divisible by
        // 7 heads") typeset in the controls, as written in shownProblems().
        typeIntoSpinBox(window.findChild<QSpinBox*>(QStringLiteral("heads")), QStringLiteral("7"));
        settle();
        auto* problems = window.findChild<QLabel*>(QStringLiteral("problems"));
        QVERIFY(problems && problems->isVisible());
        QVERIFY2(window.controls()->shownProblems().join(QLatin1Char(' ')).contains(QStringLiteral("d_model 64")),
                 qPrintable(window.controls()->shownProblems().join(QLatin1Char(' '))));
        QVERIFY2(!typeset::hasNotation(shownText(problems)), qPrintable(problems->text()));
    }

    // The status line's facts ("W_Q+W_K", "(2·d_model·d_k)", "min(d_k, d_model)") are drawn
    // typeset: their ink is narrower than the raw notation's, and a line with a sub- and a
    // superscript fits the label's height. text() stays the notation.
    void statusFactsAreTypeset() {
        StatusPanel status;
        Config config;
        config.heads = 8;
        status.showAnalysis(analyze(config, false), 12.0);
        status.resize(1400, 120);
        status.show();
        QVERIFY(QTest::qWaitForWindowExposed(&status));
        for (const char* name : {"status_params", "status_rank"}) {
            auto* fact = status.findChild<FittedLabel*>(QLatin1String(name));
            QVERIFY(fact);
            QCOMPARE(fact->text(), fact->fullText());  // the whole fact, in the notation
            QVERIFY(fact->text().contains(QStringLiteral("d_k")));
            const int right = inkRight(fact);
            const double raw = QFontMetricsF(fact->font()).horizontalAdvance(fact->text());
            QVERIFY2(right > 0.5 * raw && right < 0.97 * raw,
                     qPrintable(QStringLiteral("%1: ink to x = %2, raw text %3 px").arg(QLatin1String(name)).arg(right).arg(raw)));
            const double line = typeset::size(QStringLiteral("W_i^Q"), fact->font()).height();
            QVERIFY2(fact->contentsRect().height() >= line,
                     qPrintable(QStringLiteral("%1 px for a %2 px line").arg(fact->contentsRect().height()).arg(line)));
        }
    }

    // The Circuits view's SVG: "W_i^Q" as three text runs (W, i, Q), still text, no bitmap.
    void circuitsSvgKeepsTheTypesetPiecesAsText() {
        Config config;
        config.heads = 4;
        const Analysis a = analyze(config, false);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("circuit.svg"));
        QString error;
        QVERIFY2(exportView(ViewKind::CircuitQK, a, 0, {}, path, ImageFormat::Svg, 1.0, &error), qPrintable(error));
        bool ok = false;
        int images = -1;
        const QStringList runs = svgTextRuns(path, &ok, &images);
        QVERIFY(ok);
        QCOMPARE(images, 0);
        for (const QString& run : runs) QVERIFY2(!looksRaw(run), qPrintable(run));
        // W, then its subscript i, then its superscript Q: the title of the W_i^Q panel.
        bool found = false;
        for (qsizetype k = 0; k + 2 < runs.size() && !found; ++k)
            found = runs[k] == QStringLiteral("W") && runs[k + 1] == QStringLiteral("i") && runs[k + 2] == QStringLiteral("Q");
        QVERIFY2(found, qPrintable(runs.join(QStringLiteral(" | "))));
        QVERIFY2(runs.contains(QStringLiteral("model")), qPrintable(runs.join(QStringLiteral(" | "))));  // d_model's subscript
    }
};

HEADSCOPE_QTEST_MAIN(TestTypeset)
#include "test_typeset.moc"
