// Legible at any size (issue 7): the spectrum view and the status line at a projector's
// 1024 x 768 dock sizes, at font scale 1 and 2. Asserted on the laid-out plot, not by eye:
//  - the title, the panels' axis labels and the notes fit inside the plot or their panel;
//  - neighbouring tick labels never overlap, and no tick label leaves the plot;
//  - the cliff label and the zero count never overlap;
//  - the panels are side by side when they fit, stacked or W_QK alone when not, and W_QK
//    alone says where W_OV went;
//  - the status facts are never wider than their label, and keep their whole text.
#include <QLabel>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>

#include "Analysis.h"
#include "CircuitView.h"
#include "Circuits.h"
#include "CostView.h"
#include "FittedLabel.h"
#include "FusedProjectionsView.h"
#include "HeadGridView.h"
#include "Heatmap.h"
#include "HeadsTab.h"
#include "MainWindow.h"
#include "ModelOverviewView.h"
#include "QueryKeyMapView.h"
#include "ScoreBreakdownView.h"
#include "TokenLinesView.h"
#include "Session.h"
#include "SpectrumView.h"
#include "StatusPanel.h"
#include "TextBoxes.h"
#include "ViewTestSupport.h"
#include "WindowTestSupport.h"

using namespace headscope;
using namespace headscope::ui;
using headscope::ui::testing::checkTickLabels;
using headscope::ui::testing::describe;
using headscope::ui::testing::analysisOf;
using headscope::ui::testing::tickLabelBox;

class TestLegibility : public QObject {
    Q_OBJECT

    // Lays view out at size and font scale and checks every text on it.
    void checkSpectrum(SpectrumView& view, const QSize& size, double font_scale) {
        ViewOptions options;
        options.font_scale = font_scale;
        view.setOptions(options);
        view.resize(size);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.replotNow();
        QCustomPlot* plot = view.plot();
        const QRect viewport = plot->viewport();
        const QString where = QStringLiteral("%1 x %2 at %3x").arg(size.width()).arg(size.height()).arg(font_scale);

        // The title (when there is room for one) fits the plot's width.
        for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
            auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i));
            if (!title || !title->visible()) continue;
            const double width = QFontMetricsF(title->font()).horizontalAdvance(title->text());
            QVERIFY2(width <= viewport.width(), qPrintable(where + ": title cut: " + title->text()));
        }
        int panels = 0;
        for (QCPAxisRect* rect : {view.qkRect(), view.ovRect()}) {
            if (!rect->visible()) continue;
            ++panels;
            const QRect r = rect->rect();
            QVERIFY2(r.width() > 40 && r.height() > 20, qPrintable(where + ": panel too small " + describe(r)));
            for (QCPAxis* axis : {rect->axis(QCPAxis::atTop), rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
                const double length = axis->orientation() == Qt::Horizontal ? r.width() : r.height();
                const double width = QFontMetricsF(axis->labelFont()).horizontalAdvance(axis->label());
                QVERIFY2(width <= length, qPrintable(where + ": axis label longer than its panel: " + axis->label()));
            }
            QVERIFY2(!rect->axis(QCPAxis::atTop)->label().isEmpty(), qPrintable(where + ": panel without a name"));
            for (QCPAxis* axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
                const int shown = checkTickLabels(axis, viewport, where);
                if (QTest::currentTestFailed()) return;
                QVERIFY2(shown >= 2, qPrintable(where + ": fewer than two tick labels on an axis"));
            }
        }
        QVERIFY(panels >= 1);
        // Notes (cliff, zero count, tolerance) lie inside their panel and apart from each other.
        QVector<QRectF> notes;
        for (int i = 0; i < plot->itemCount(); ++i) {
            auto* text = qobject_cast<QCPItemText*>(plot->item(i));
            if (!text || text->text().isEmpty() || !text->clipAxisRect()->visible()) continue;
            const QRectF box = QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()).normalized();
            QVERIFY2(QRectF(text->clipAxisRect()->rect()).adjusted(-1, -1, 1, 1).contains(box),
                     qPrintable(where + ": note cut: " + text->text() + " " + describe(box)));
            for (const QRectF& other : notes)
                QVERIFY2(!box.intersects(other), qPrintable(where + ": notes overlap: " + text->text()));
            notes << box;
        }
    }

private slots:
    void spectrumIsLegibleAtEverySize_data() {
        QTest::addColumn<int>("d_model");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("d_k");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<double>("font_scale");
        // The dock at 1024 x 768 (about 450 x 230), 1280 x 720, full HD, and the export size.
        const QSize sizes[] = {{450, 230}, {330, 230}, {620, 260}, {1100, 330}, {900, 560}, {260, 160}};
        for (const QSize& size : sizes)
            for (double scale : {1.0, 1.5, 2.0}) {
                const QString name = QStringLiteral("%1x%2 at %3").arg(size.width()).arg(size.height()).arg(scale);
                QTest::newRow(qPrintable(name + " demo")) << 64 << 8 << 8 << size << scale;
                QTest::newRow(qPrintable(name + " bert")) << 768 << 12 << 64 << size << scale;
                QTest::newRow(qPrintable(name + " cliff at the end")) << 16 << 1 << 32 << size << scale;
            }
    }

    void spectrumIsLegibleAtEverySize() {
        QFETCH(int, d_model);
        QFETCH(int, heads);
        QFETCH(int, d_k);
        QFETCH(QSize, size);
        QFETCH(double, font_scale);
        SpectrumView view;
        view.setAnalysis(analysisOf(d_model, heads, d_k));
        checkSpectrum(view, size, font_scale);
    }

    void projectionsAreLegibleAtEverySize() {
        for (const QSize& size : {QSize(650, 400), QSize(690, 400), QSize(1000, 600), QSize(1500, 800)})
            for (double scale : {1.0, 1.5, 2.0})
                for (int heads : {8, 16}) {
                    FusedProjectionsView view;
                    ViewOptions options;
                    options.font_scale = scale;
                    view.setOptions(options);
                    view.setHead(1);  // framed on every panel
                    view.setAnalysis(analysisOf(64, heads, 64 / heads));
                    view.resize(size);
                    view.show();
                    QVERIFY(QTest::qWaitForWindowExposed(&view));
                    view.replotNow();
                    const QRect viewport = view.plot()->viewport();
                    const QString where = QStringLiteral("projections %1 x %2 at %3x, %4 heads")
                                              .arg(size.width()).arg(size.height()).arg(scale).arg(heads);
                    for (int i = 0; i < view.plot()->plotLayout()->elementCount(); ++i)
                        if (auto* text = qobject_cast<QCPTextElement*>(view.plot()->plotLayout()->elementAt(i)))
                            for (const QString& line : text->text().split('\n'))
                                QVERIFY2(QFontMetricsF(text->font()).horizontalAdvance(line) <= viewport.width(),
                                         qPrintable(where + ": title cut: " + line));
                    // The framed head's block is named however thinned its neighbours' names are (issue 36
                    // item 18: lesson 3 framed head 1 under "h0 h2").
                    for (const auto m : {FusedProjectionsView::WQ, FusedProjectionsView::Q}) {
                        QCPAxis* top = view.colorMap(m)->keyAxis()->axisRect()->axis(QCPAxis::atTop);
                        const auto names = qSharedPointerCast<QCPAxisTickerText>(top->ticker());
                        QVERIFY(names);
                        QVERIFY2(names->ticks().values().contains(QStringLiteral("h1")),
                                 qPrintable(where + ": " + QStringList(names->ticks().values()).join(' ')));
                    }
                    // Q, K and V name their biases at every size (issue 36 item 15: "Q = X W_Q" at 1024 x 768).
                    QVERIFY(view.analysis()->weights().hasBias());
                    for (const auto m : {FusedProjectionsView::Q, FusedProjectionsView::K, FusedProjectionsView::V}) {
                        const QString title = view.colorMap(m)->keyAxis()->axisRect()->axis(QCPAxis::atTop)->label();
                        QVERIFY2(title.contains(QStringLiteral("+ b_")) || title.contains(QStringLiteral("+b_")),
                                 qPrintable(where + ": " + title));
                    }
                    for (int m = 0; m < FusedProjectionsView::kCount; ++m) {
                        QCPAxisRect* rect =
                            view.colorMap(static_cast<FusedProjectionsView::Matrix>(m))->keyAxis()->axisRect();
                        for (QCPAxis* axis : rect->axes()) {
                            checkTickLabels(axis, viewport, where + QStringLiteral(", panel %1").arg(m));
                            if (QTest::currentTestFailed()) return;
                        }
                        // Token rows carry words, never row numbers; thinned, with their positions.
                        if (m >= FusedProjectionsView::X) {
                            const QVector<QString> rows = rect->axis(QCPAxis::atLeft)->tickVectorLabels();
                            QVERIFY2(!rows.isEmpty() && (rows.front() == QStringLiteral("The") || rows.front() == QStringLiteral("0:The")),
                                     qPrintable(where + ": " + (rows.isEmpty() ? QString() : rows.front())));
                        }
                    }
                }
    }

    void costsWrapToTheTabsWidth() {
        // The tab at 1024 x 768 with the controls showing is about 690 px wide.
        for (double scale : {1.0, 2.0})
            for (int width : {690, scale > 1 ? 690 : 500}) {
                CostView view;
                ViewOptions options;
                options.font_scale = scale;
                view.setOptions(options);
                view.setAnalysis(analysisOf(768, 12, 64));
                view.resize(width, 400);
                view.show();
                QVERIFY(QTest::qWaitForWindowExposed(&view));
                QApplication::processEvents();
                auto* scroll = view.findChild<QScrollArea*>();
                QVERIFY(scroll);
                QVERIFY2(scroll->horizontalScrollBar()->maximum() == 0,
                         qPrintable(QStringLiteral("%1 px at %2x: the page is %3 px wider than the tab")
                                        .arg(width).arg(scale).arg(scroll->horizontalScrollBar()->maximum())));
                QVERIFY(view.plainText().contains("2 · d_model · d_k"));  // the wrapping hints are not text
                QVERIFY(view.plainText().contains("n_kv = 11"));
                // The title wraps between "name = value" pairs, never inside one (issue 36 item 14).
                QTextDocument doc;
                doc.setDefaultFont(view.page()->font());
                doc.setHtml(view.html());
                doc.setTextWidth(view.page()->width());
                (void)doc.size();  // laid out now
                const QTextBlock title = doc.firstBlock();
                QVERIFY(title.text().startsWith(QStringLiteral("Costs at")));
                QVERIFY(title.layout()->lineCount() >= (scale > 1 || width < 600 ? 2 : 1));  // it does wrap
                for (int i = 0; i < title.layout()->lineCount(); ++i) {
                    const QTextLine line = title.layout()->lineAt(i);
                    const QString text = title.text().mid(line.textStart(), line.textLength()).trimmed();
                    QVERIFY2(!text.startsWith(QLatin1Char('=')) && !text.endsWith(QLatin1Char('=')), qPrintable(text));
                }
            }
    }

    // A projector at 1024 x 768, fonts at 2x, the controls showing: the grid gets about
    // 690 x 400 pixels, and still every row of heads has the same height and words on both axes.
    void gridKeepsWordsAt2xWithTheControlsShowing() {
        MainWindowOptions no_settings;
        no_settings.use_settings = false;
        MainWindow window(no_settings);
        window.resize(1024, 768);
        window.headsTab()->setFocusWanted(false);  // the grid alone (beside the large head: thumbnails)
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ViewOptions large = window.viewOptions();
        large.font_scale = 2.0;
        window.setViewOptions(large);
        QVERIFY(window.waitForCompleteUpdate(60000));
        QApplication::processEvents();
        HeadGridView* grid = window.headGrid();
        grid->replotNow();
        QVERIFY(grid->headCount() == 8);
        const int first = grid->headRect(0)->rect().height();
        QVERIFY2(first >= 40, qPrintable(QStringLiteral("heatmaps %1 px tall").arg(first)));
        for (int h = 1; h < grid->headCount(); ++h)
            QVERIFY2(std::abs(grid->headRect(h)->rect().height() - first) <= 2,
                     qPrintable(QStringLiteral("head %1 is %2 px tall, head 0 %3").arg(h).arg(grid->headRect(h)->rect().height()).arg(first)));
        const QStringList words = heatmap::queryLabels(*window.session()->analysis());
        for (QCPAxis* axis : {grid->headRect(0)->axis(QCPAxis::atLeft), grid->headRect(grid->headCount() - 1)->axis(QCPAxis::atBottom)}) {
            int shown = 0;
            const QVector<QString> labels = axis->tickVectorLabels();
            const QVector<double> at = axis->tickVector();
            for (qsizetype i = 0; i < labels.size(); ++i)
                if (!labels[i].isEmpty()) {
                    QVERIFY2(testing::isWordLabel(labels[i], int(std::lround(at[i])), words),
                             qPrintable(labels[i] + " is not the word of the text at its position"));
                    ++shown;
                }
            QVERIFY2(shown >= 2, qPrintable(QStringLiteral("%1 words on an axis").arg(shown)));
            checkTickLabels(axis, grid->viewport(), QStringLiteral("grid at 2x"));
        }
    }

    // The Model tab before a model is open: its invitation in place of an empty plot, wrapped to the
    // tab, whole, at 1x and 2x fonts; the plot comes back with a model.
    void modelTabInvitationFitsTheTab() {
        for (double scale : {1.0, 2.0}) {
            ModelOverviewView overview;
            testing::showAt(overview, QSize(560, 380), scale, nullptr);  // no model: no trace
            QVERIFY(!overview.plot()->isVisible());
            QLabel* sentence = overview.noModelNote()->sentence();
            QVERIFY(sentence->isVisible());
            QCOMPARE(sentence->text(), QStringLiteral("Open a model (File > Open model) to see every layer's heads"));
            QCOMPARE(sentence->font().pointSizeF(), heatmap::font(12, scale, true).pointSizeF());
            const QRect shown(sentence->mapTo(&overview, QPoint(0, 0)), sentence->size());
            QVERIFY2(overview.rect().contains(shown) && sentence->height() >= sentence->heightForWidth(sentence->width()),
                     qPrintable(QStringLiteral("at %1x: the sentence at (%2, %3) %4 x %5 in %6 x %7")
                                    .arg(scale).arg(shown.x()).arg(shown.y()).arg(shown.width()).arg(shown.height())
                                    .arg(overview.width()).arg(overview.height())));
            QVERIFY(!overview.noModelNote()->links()->isVisible());  // a view alone: no menu to link to
            auto trace = std::make_shared<model::Trace>();
            trace->ids.assign(4, 0);
            trace->tokens.assign(4, "a");
            trace->layers.resize(1);
            trace->layers[0].attention.heads.resize(2);
            for (HeadResult& head : trace->layers[0].attention.heads) head.weights = Eigen::MatrixXf::Constant(4, 4, 0.25f);
            overview.setTrace(trace);
            overview.replotNow();
            QVERIFY(overview.plot()->isVisible() && !overview.noModelNote()->isVisible());
            overview.setTrace(nullptr);
            overview.replotNow();
            QVERIFY(!overview.plot()->isVisible() && overview.noModelNote()->isVisible());
        }
    }

    // Issue 36 item 10: the Model tab of a real-size model (16 layers x 32 heads, Llama 3.2 1B's)
    // in the tab at 1024 x 768, 1x and 2x: its title whole and in view, a colour bar with its
    // scale, and each panel's axes named (rows queries, columns keys); the panels out of view
    // a scroll away.
    void modelTabOfARealSizeModelKeepsItsTitleAndScale() {
        auto trace = std::make_shared<model::Trace>();
        const int n = 8, layers = 16, heads = 32;
        trace->ids.assign(n, 0);
        trace->tokens.assign(n, "a");
        std::srand(3);
        for (int l = 0; l < layers; ++l) {
            model::LayerTrace layer;
            for (int h = 0; h < heads; ++h) {
                HeadResult head;
                head.weights = Eigen::MatrixXf::Random(n, n).cwiseAbs();  // (n, n), rows summing to 1
                for (int r = 0; r < n; ++r) head.weights.row(r) /= head.weights.row(r).sum();
                layer.attention.heads.push_back(head);
            }
            layer.attention.allowed = MaskMatrix::Constant(n, n, true);
            trace->layers.push_back(layer);
        }
        for (double scale : {1.0, 2.0}) {
            ModelOverviewView overview;
            overview.setTrace(trace);
            testing::showAt(overview, QSize(690, 400), scale, nullptr);
            overview.plot()->replot();
            const QString where = QStringLiteral("16 x 32 at %1x").arg(scale);
            auto* title = qobject_cast<QCPTextElement*>(overview.plot()->plotLayout()->elementAt(0));
            QVERIFY(title);
            const QRect viewport = overview.plot()->viewport();
            const QFontMetricsF metrics(title->font());
            QVERIFY2(title->outerRect().top() >= viewport.top() && title->outerRect().height() >= metrics.height() - 1,
                     qPrintable(where + QStringLiteral(": title %1 px high at y %2").arg(title->outerRect().height()).arg(title->outerRect().top())));
            for (const QString& line : title->text().split(QLatin1Char('\n')))
                QVERIFY2(metrics.horizontalAdvance(line) <= viewport.width(), qPrintable(where + ": " + line));
            QVERIFY2(title->text().contains(QStringLiteral("queries")) && title->text().contains(QStringLiteral("keys")),
                     qPrintable(where + ": " + title->text()));
            const QList<QCPColorScale*> bars = overview.plot()->findChildren<QCPColorScale*>();
            QCOMPARE(bars.size(), 1);
            QVERIFY2(viewport.contains(bars.front()->outerRect()), qPrintable(where + ": the colour bar leaves the view"));
            QVERIFY(!bars.front()->axis()->label().isEmpty());
            double top = 0;  // one scale for every panel (the View menu's shared scale): its largest weight
            for (const auto& layer : trace->layers)
                for (const HeadResult& head : layer.attention.heads) top = std::max(top, double(head.weights.maxCoeff()));
            QCOMPARE(bars.front()->dataRange().upper, top);
            QCOMPARE(overview.colorMap(overview.firstLayer(), overview.firstHead())->dataRange().upper, top);
            overview.setSelection(15, 31);  // the last panel, scrolled into view (issue 35 item 3)
            QVERIFY(overview.colorMap(15, 31));
            QCOMPARE(overview.colorMap(15, 31)->dataRange().upper, top);
        }
    }

    // The query-key map's words (the demo's 11 tokens, 22 points) at the tab's size at 1x and
    // 2x fonts and at the export's size, with and without a selected cell: each word beside
    // its own point, inside the plot, over no other word, no point (nor the selected cell's
    // ring), nor the variance note, the legend or the note counting the hidden words; no point
    // under a note or the legend; the selected cell's words always shown; at 1x the keys the
    // arrows point to always named.
    void queryKeyMapWordsNeverOverlap_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<double>("font_scale");
        QTest::addColumn<int>("at_least");  // words shown, of 22 (DejaVu Sans, as on Debian)
        QTest::addColumn<int>("cell_row");
        QTest::addColumn<int>("cell_col");
        QTest::newRow("tab 1x") << QSize(690, 400) << 1.0 << 19 << -1 << -1;
        QTest::newRow("tab 2x") << QSize(690, 400) << 2.0 << 8 << -1 << -1;
        QTest::newRow("export 1x") << QSize(1100, 820) << 1.0 << 22 << -1 << -1;
        QTest::newRow("full HD 2x") << QSize(1000, 560) << 2.0 << 14 << -1 << -1;
        QTest::newRow("tab 1x, a cell selected") << QSize(690, 400) << 1.0 << 18 << 4 << 7;
        QTest::newRow("tab 2x, a cell selected") << QSize(690, 400) << 2.0 << 6 << 9 << 1;
    }
    void queryKeyMapWordsNeverOverlap() {
        QFETCH(QSize, size);
        QFETCH(double, font_scale);
        QFETCH(int, at_least);
        QFETCH(int, cell_row);
        QFETCH(int, cell_col);
        ViewOptions options;
        options.font_scale = font_scale;
        QueryKeyMapView map;
        map.setOptions(options);
        map.setAnalysis(analysisOf(64, 8, 8));
        map.setCell(cell_row, cell_col);
        map.resize(size);
        map.show();
        QVERIFY(QTest::qWaitForWindowExposed(&map));
        map.replotNow();
        QCustomPlot* plot = map.plot();
        const QueryKeyMap& m = map.map();
        const int points = int(m.query_tokens.size() + m.key_tokens.size());
        QCOMPARE(points, 22);
        const auto box = [](const QCPItemText* t) {
            return QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()).normalized();
        };
        const auto pixel = [&](const QPointF& at) { return QPointF(plot->xAxis->coordToPixel(at.x()), plot->yAxis->coordToPixel(at.y())); };
        const double ring = 23.0 / 2;  // the selected cell's ring, pen included
        struct Point { QPointF at; QString token; double radius; };
        std::vector<Point> marks;
        for (int i = 0; i < int(m.query_tokens.size()); ++i)
            marks.push_back({pixel(QPointF(m.query_points(i, 0), m.query_points(i, 1))), QString::fromStdString(m.query_tokens[i]),
                             i == cell_row ? ring : 4 * std::max(1.0, font_scale * 0.8)});
        for (int j = 0; j < int(m.key_tokens.size()); ++j)
            marks.push_back({pixel(QPointF(m.key_points(j, 0), m.key_points(j, 1))), QString::fromStdString(m.key_tokens[j]),
                             j == cell_col ? ring : 5 * std::max(1.0, font_scale * 0.8)});
        std::vector<QRectF> notes{plot->legend->outerRect()}, words;
        for (int i = 0; i < plot->itemCount(); ++i) {
            auto* text = qobject_cast<QCPItemText*>(plot->item(i));
            if (!text || !text->visible() || text->text().isEmpty()) continue;
            (text->position->type() == QCPItemPosition::ptAxisRectRatio ? notes : words).push_back(box(text));
        }
        const auto shown = map.shownLabels();  // (word, its point), in the order of the boxes
        QCOMPARE(int(words.size()), shown.size());
        const QString where = QStringLiteral("%1 x %2 at %3x").arg(size.width()).arg(size.height()).arg(font_scale);
        const QRectF inside = QRectF(plot->axisRect()->rect()).adjusted(-0.5, -0.5, 0.5, 0.5);
        for (const QRectF& n : notes) QVERIFY2(inside.contains(n), qPrintable(where + ": a note or the legend leaves the plot"));
        for (const Point& p : marks) {
            const QRectF mark(p.at.x() - p.radius, p.at.y() - p.radius, 2 * p.radius, 2 * p.radius);
            QVERIFY2(inside.contains(mark), qPrintable(where + ": point outside the plot: " + p.token));
            for (const QRectF& n : notes) QVERIFY2(!n.intersects(mark), qPrintable(where + ": point under a note: " + p.token));
        }
        for (std::size_t w = 0; w < words.size(); ++w) {
            const QString& word = shown[int(w)].first;
            QVERIFY2(inside.contains(words[w]), qPrintable(where + ": word cut: " + word));
            for (std::size_t o = 0; o < w; ++o)
                QVERIFY2(!words[w].intersects(words[o]), qPrintable(where + ": " + word + " over " + shown[int(o)].first));
            for (const QRectF& n : notes) QVERIFY2(!words[w].intersects(n), qPrintable(where + ": word under a note: " + word));
            for (const Point& p : marks) {
                const QRectF mark(p.at.x() - p.radius, p.at.y() - p.radius, 2 * p.radius, 2 * p.radius);
                QVERIFY2(!words[w].intersects(mark), qPrintable(where + ": " + word + " over the point of " + p.token));
            }
            // Beside its own point: within its clearance (marker or ring radius + 2 px) and
            // the pixel of rounding.
            const QPointF own = pixel(shown[int(w)].second);
            const double dx = std::max({words[w].left() - own.x(), 0.0, own.x() - words[w].right()});
            const double dy = std::max({words[w].top() - own.y(), 0.0, own.y() - words[w].bottom()});
            double radius = 0;
            for (const Point& p : marks)
                if (std::hypot(p.at.x() - own.x(), p.at.y() - own.y()) < 1e-6 && p.token == word) radius = std::max(radius, p.radius);
            QVERIFY2(radius > 0, qPrintable(where + ": " + word + " names no point of its token"));
            QVERIFY2(std::hypot(dx, dy) <= radius + 3, qPrintable(where + ": " + word + " is not beside its point"));
        }
        QVERIFY2(shown.size() >= at_least, qPrintable(where + QStringLiteral(": %1 words shown").arg(shown.size())));
        QCOMPARE(map.pointLabels().size(), shown.size());
        QStringList shown_words;
        for (const auto& label : shown) shown_words << label.first;
        if (cell_row >= 0) {  // the selected cell's words, whatever the room
            QVERIFY(shown.contains(qMakePair(QString::fromStdString(m.query_tokens[cell_row]),
                                             QPointF(m.query_points(cell_row, 0), m.query_points(cell_row, 1)))));
            QVERIFY(shown.contains(qMakePair(QString::fromStdString(m.key_tokens[cell_col]),
                                             QPointF(m.key_points(cell_col, 0), m.key_points(cell_col, 1)))));
        } else if (font_scale == 1.0) {
            for (int key : m.most_attended)
                QVERIFY2(shown_words.contains(QString::fromStdString(m.key_tokens[std::size_t(key)])),
                         qPrintable(where + ": the arrows' key " + QString::fromStdString(m.key_tokens[std::size_t(key)])));
        }
        // The hidden words are counted on the plot.
        const int left_out = points - int(shown.size());
        QCOMPARE(map.leftOutText().isEmpty(), left_out == 0);
        if (left_out > 0)
            QVERIFY2(map.leftOutText().startsWith(QStringLiteral("%1 of %2 points not labelled").arg(left_out).arg(points)),
                     qPrintable(map.leftOutText()));
    }

    // Issue 36 item 3: a crowded map (more points than QueryKeyMapView::kMaxLabels) counts every
    // point without a word, those it never labels too (the demo with 300 words said "47 words
    // hidden" beside about 18 labels); a picture for a file names no hover.
    void aCrowdedQueryKeyMapCountsEveryPointWithoutAWord() {
        Config c;
        c.text.clear();
        c.seq_len = 60;  // 120 points
        const auto analysis = std::make_shared<const Analysis>(analyze(c, true));
        for (const bool for_file : {false, true}) {
            QueryKeyMapView map;
            map.setForFile(for_file);
            testing::showAt(map, QSize(690, 400), 1.0, analysis);
            const int points = 2 * 60;
            QVERIFY(points > QueryKeyMapView::kMaxLabels);
            const int without = points - int(map.shownLabels().size());
            QVERIFY2(map.leftOutText().startsWith(QStringLiteral("%1 of %2 points not labelled").arg(without).arg(points)),
                     qPrintable(map.leftOutText()));
            QCOMPARE(map.leftOutText().contains(QStringLiteral("hover")), !for_file);
            ScoreBreakdownView score;  // no cell selected: the window says where to click, a file does not
            score.setForFile(for_file);
            testing::showAt(score, QSize(1400, 900), 1.0, analysis);
            QCOMPARE(score.title().contains(QStringLiteral("click")), !for_file);
            QVERIFY2(score.title().contains(QStringLiteral("the last query and the key it attends to most")), qPrintable(score.title()));
        }
    }

    // The per-token views at the tab's size on a projector: nothing demands more width than
    // the tab has, every title line and axis label fits, the variance note keeps off the legend.
    void tokenViewsFitTheTabAt2x() {
        ViewOptions large;
        large.font_scale = 2.0;
        const auto analysis = analysisOf(64, 8, 8);
        const QSize tab(690, 400);
        const auto fits = [](const QString& text, const QFont& font, double room) {
            for (const QString& line : text.split(QLatin1Char('\n')))
                if (QFontMetricsF(font).horizontalAdvance(line) > room) return false;
            return true;
        };
        TokenLinesView lines;
        lines.setOptions(large);
        lines.setAnalysis(analysis);
        lines.resize(tab);
        lines.show();
        QVERIFY(QTest::qWaitForWindowExposed(&lines));
        QVERIFY2(lines.minimumSizeHint().width() <= tab.width(),
                 qPrintable(QStringLiteral("token lines want %1 px").arg(lines.minimumSizeHint().width())));
        QCustomPlot* plot = lines.findChild<QCustomPlot*>();
        QVERIFY(plot);
        plot->replot();
        for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
            if (auto* text = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
                QVERIFY2(fits(text->text(), text->font(), plot->viewport().width()), qPrintable(text->text()));
        // The hover hint takes at most two lines of the room the controls leave it (or none:
        // it stays whole in the tooltip); in a wide tab at 1x it is the whole sentence.
        const QString whole = QStringLiteral("Hover a word to see only its lines and their weights.");
        auto* hint = lines.findChild<QLabel*>(QStringLiteral("token_lines_hint"));
        QVERIFY(hint);
        QVERIFY2(QFontMetricsF(hint->font()).horizontalAdvance(hint->text()) <= 1.8 * hint->width(), qPrintable(hint->text()));
        QVERIFY2(hint->height() <= 2.5 * QFontMetricsF(hint->font()).lineSpacing(), qPrintable(QString::number(hint->height())));
        QCOMPARE(hint->toolTip(), whole);
        TokenLinesView wide;
        wide.setAnalysis(analysis);
        wide.resize(1000, 500);
        wide.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wide));
        QCOMPARE(wide.findChild<QLabel*>(QStringLiteral("token_lines_hint"))->text(), whole);

        // The Q-K map at 2x in this tab, and at 1x in the Q-K map tab of a 1024 x 768 window (issue 36
        // item 8: "PC 1 + PC 2: 63.7% of the vari" ran under the legend there).
        for (const auto& [font_scale, size] : {std::pair{2.0, tab}, std::pair{1.0, QSize(370, 600)}}) {
            ViewOptions options;
            options.font_scale = font_scale;
            QueryKeyMapView map;
            map.setOptions(options);
            map.setAnalysis(analysis);
            map.resize(size);
            map.show();
            QVERIFY(QTest::qWaitForWindowExposed(&map));
            QCustomPlot* qk = map.findChild<QCustomPlot*>();
            QVERIFY(qk);
            map.replotNow();  // waits for the map computed off the GUI thread
            for (int i = 0; i < qk->plotLayout()->elementCount(); ++i)
                if (auto* text = qobject_cast<QCPTextElement*>(qk->plotLayout()->elementAt(i)))
                    QVERIFY2(fits(text->text(), text->font(), qk->viewport().width()), qPrintable(text->text()));
            const QRect r = qk->axisRect()->rect();
            QVERIFY2(fits(qk->xAxis->label(), qk->xAxis->labelFont(), r.width()), qPrintable(qk->xAxis->label()));
            QVERIFY2(fits(qk->yAxis->label(), qk->yAxis->labelFont(), r.height()), qPrintable(qk->yAxis->label()));
            QVERIFY(qk->xAxis->label().contains("%") );
            for (int i = 0; i < qk->itemCount(); ++i) {
                auto* note = qobject_cast<QCPItemText*>(qk->item(i));
                if (!note || !note->text().contains("variance")) continue;
                const QRectF box(note->topLeft->pixelPosition(), note->bottomRight->pixelPosition());
                QVERIFY2(!box.intersects(qk->legend->outerRect()), qPrintable(note->text() + " runs under the legend"));
                QVERIFY2(box.right() <= r.right(), qPrintable(note->text() + " runs out of the plot"));
            }
            QVERIFY(map.varianceText().contains("explain"));  // the whole sentence stays available
        }

        // The score breakdown: its sentences wrap to the width (never splitting "q_i · k_j"),
        // and the page grows taller, to scroll, rather than squeezing them.
        ScoreBreakdownView score;
        score.setOptions(large);
        score.setAnalysis(analysis);
        score.setCircuits(std::make_shared<const Circuits>(headCircuits(analysis->weights(), 0)));  // the bilinear form's terms
        score.resize(tab);
        score.show();
        QVERIFY(QTest::qWaitForWindowExposed(&score));
        score.replotNow();
        QApplication::processEvents();
        QCustomPlot* page = score.plot();
        page->replot();  // as the screen shows it, after the page took its height
        // The arithmetic wraps between terms, never inside one (issue 36 item 14: "b_q" / "W_i^Kᵀ x_jᵀ").
        QString wrapped;
        for (int i = 0; i < page->plotLayout()->elementCount(); ++i)
            if (auto* text = qobject_cast<QCPTextElement*>(page->plotLayout()->elementAt(i)))
                if (text->text().contains(QStringLiteral("Through"))) wrapped = text->text();
        QVERIFY2(wrapped.count(QLatin1Char('\n')) >= 2, qPrintable(wrapped));  // wrapped indeed
        for (const QString& term : {QStringLiteral("x_i W_QK,i x_jᵀ ="), QStringLiteral("x_i W_i^Q b_kᵀ ="),
                                    QStringLiteral("b_q W_i^Kᵀ x_jᵀ ="), QStringLiteral("b_q b_kᵀ =")}) {
            bool whole = false;
            for (QString line : wrapped.split(QLatin1Char('\n'))) whole |= line.replace(QChar(QChar::Nbsp), QLatin1Char(' ')).contains(term);
            QVERIFY2(whole, qPrintable(term + QStringLiteral(" broken in:\n") + wrapped));
        }
        // q_i, k_j and their product each keep a scale: both ends and 0, at least (issue 36 item 9:
        // a lone "0" at 2x).
        for (const auto chart : {ScoreBreakdownView::Query, ScoreBreakdownView::Key, ScoreBreakdownView::Product}) {
            QCPAxis* y = score.bars(chart)->valueAxis();
            QVector<double> ticks;
            QVector<QString> labels;
            y->ticker()->generate(y->range(), QLocale(), QLatin1Char('g'), y->numberPrecision(), ticks, nullptr, &labels);
            QVERIFY2(ticks.size() >= 3 && ticks.contains(0.0) && ticks.contains(y->range().upper) && ticks.contains(y->range().lower),
                     qPrintable(QStringLiteral("chart %1: %2 ticks on %3 .. %4").arg(int(chart)).arg(ticks.size()).arg(y->range().lower).arg(y->range().upper)));
        }
        for (int i = 0; i < page->plotLayout()->elementCount(); ++i)
            if (auto* text = qobject_cast<QCPTextElement*>(page->plotLayout()->elementAt(i))) {
                QVERIFY2(fits(text->text(), text->font(), page->viewport().width()), qPrintable(text->text()));
                const double lines = text->text().count(QLatin1Char('\n')) + 1;
                QVERIFY2(text->outerRect().height() + 1 >= lines * QFontMetricsF(text->font()).height() * 0.95,
                         qPrintable("squeezed: " + text->text()));
            }
        QVERIFY(page->height() > tab.height());  // taller than the tab: the page scrolls
        const double tick_line = QFontMetricsF(page->axisRects().front()->axis(QCPAxis::atLeft)->tickLabelFont()).height();
        for (QCPAxisRect* chart : page->axisRects())
            QVERIFY2(chart->rect().height() >= 2.5 * tick_line,
                     qPrintable(QStringLiteral("a chart %1 px tall for %2 px numbers (page %3 px)")
                                    .arg(chart->rect().height()).arg(tick_line).arg(page->height())));
        QVERIFY(score.arithmetic().contains("q_i · k_j = Σ"));
        // Its title names the cell in at most four lines (the whole sentence stays in title()).
        auto* heading = qobject_cast<QCPTextElement*>(page->plotLayout()->elementAt(0));
        QVERIFY(heading);
        QVERIFY2(heading->text().count(QLatin1Char('\n')) <= 3, qPrintable(heading->text()));
        QVERIFY2(heading->text().contains("query 10 “tired” → key 1") && heading->text().contains("no cell selected"),
                 qPrintable(heading->text()));
        QVERIFY(score.title().contains("click a cell in the Heads tab"));
    }

    // The circuits tab at 2x in the 1024 x 768 window: the long title wraps whole, the page
    // scrolls rather than squeezing it, and no two numbers on a panel overlap.
    void circuitsFitTheTabAt2x() {
        ViewOptions large;
        large.font_scale = 2.0;
        const auto analysis = analysisOf(64, 8, 8);
        CircuitView view;
        view.setOptions(large);
        view.setAnalysis(analysis);
        view.setCircuits(std::make_shared<const Circuits>(headCircuits(analysis->weights(), 0)));
        view.resize(690, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.replotNow();
        QApplication::processEvents();
        QCustomPlot* plot = view.plot();
        plot->replot();
        for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
            if (auto* text = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i))) {
                for (const QString& line : text->text().split(QLatin1Char('\n')))
                    QVERIFY2(QFontMetricsF(text->font()).horizontalAdvance(line) <= plot->viewport().width(), qPrintable(line));
                const double lines = text->text().count(QLatin1Char('\n')) + 1;
                QVERIFY2(text->outerRect().height() + 1 >= lines * QFontMetricsF(text->font()).height() * 0.95,
                         qPrintable("squeezed: " + text->text()));
            }
        // At 2x the title gives the ranks and counts in at most four lines, the panels in sight;
        // with room, the sentences with their formulas.
        QVERIFY2(view.title().count(QLatin1Char('\n')) <= 3, qPrintable(view.title()));
        QVERIFY2(view.title().contains("W_QK,i has rank 8 ≤ 8") && view.title().contains("W_OV,i has rank 8 ≤ 8") &&
                     view.title().count("1,024 vs 4,096 parameters") == 2, qPrintable(view.title()));
        CircuitView wide;
        wide.setAnalysis(analysis);
        wide.setCircuits(std::make_shared<const Circuits>(headCircuits(analysis->weights(), 0)));
        wide.resize(1000, 600);
        wide.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wide));
        wide.replotNow();
        QVERIFY2(wide.title().contains("(2·d_model·d_k)") && wide.title().contains("rank 8 ≤ min(d_k, d_model) = 8"),
                 qPrintable(wide.title()));
        for (int m = 0; m < 6; ++m) {
            QCPAxisRect* rect = view.colorMap(static_cast<CircuitView::Matrix>(m))->keyAxis()->axisRect();
            for (QCPAxis* axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
                checkTickLabels(axis, plot->viewport(), QStringLiteral("circuit panel %1").arg(m));
                if (QTest::currentTestFailed()) return;
            }
        }
    }

    // Lesson 1 step 1 at QT_SCALE_FACTOR 2 (the Circuits tab about 500 x 215 beside the lesson
    // dock): the compact title keeps both ranks and both counts in two lines, not three.
    void circuitsTitleTakesTwoLinesInLessonOneAt2x() {
        const auto analysis = testing::analysisOf(64, 4, 16);
        CircuitView view;
        view.setCircuits(std::make_shared<const Circuits>(headCircuits(analysis->weights(), 0)));
        testing::showAt(view, QSize(510, 215), 1, analysis);
        const QString title = view.title();
        QVERIFY2(title.count(QLatin1Char('\n')) == 1, qPrintable(title));
        QVERIFY2(title.contains("W_QK,i") && title.contains("W_OV,i") && title.count("rank 16 ≤ 16") == 2 &&
                     title.count("2,048 vs 4,096") == 2, qPrintable(title));
    }

    // View > Token positions on labels: "0 The", "1 animal" on the grid's axes (padded keys
    // and the command line name tokens by position).
    void tokenLabelsCanCarryTheirPositions() {
        MainWindowOptions no_settings;
        no_settings.use_settings = false;
        MainWindow window(no_settings);
        window.resize(1400, 900);
        window.headsTab()->setFocusWanted(false);  // the grid alone carries words (thumbnails do not)
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        auto* action = window.findChild<QAction*>(QStringLiteral("token_positions"));
        QVERIFY(action && action->isCheckable() && !action->isChecked());
        action->trigger();
        QVERIFY(window.viewOptions().token_positions);
        QVERIFY(window.waitForCompleteUpdate(60000));
        window.headGrid()->replotNow();
        const QStringList words = heatmap::queryLabels(*window.session()->analysis());
        const QVector<QString> shown = window.headGrid()->headRect(0)->axis(QCPAxis::atLeft)->tickVectorLabels();
        QVERIFY(!shown.isEmpty());
        QCOMPARE(shown.front(), QStringLiteral("0 ") + words.front());
        for (const QString& label : shown)
            if (!label.isEmpty()) QVERIFY2(label.section(QLatin1Char(' '), 0, 0).toInt() >= 0 && label.contains(' '), qPrintable(label));
        action->trigger();  // and off again
        window.headGrid()->replotNow();
        // The first word again without "0 " (or, thinned, "0:The": every k-th word keeps its position).
        const QString first = window.headGrid()->headRect(0)->axis(QCPAxis::atLeft)->tickVectorLabels().front();
        QVERIFY2(testing::isWordLabel(first, 0, words), qPrintable(first));
    }

    void panelsRearrangeToTheRoomAndSaySo() {
        SpectrumView view;
        view.setAnalysis(analysisOf(64, 8, 8));
        checkSpectrum(view, QSize(900, 300), 1.0);
        QCOMPARE(view.arrangement(), SpectrumView::Arrangement::SideBySide);
        QVERIFY(view.ovRect()->visible());
        QCOMPARE(view.qkRect()->axis(QCPAxis::atTop)->label(), QStringLiteral("W_QK,i = W_i^Q (W_i^K)ᵀ"));

        checkSpectrum(view, QSize(330, 700), 1.5);
        QCOMPARE(view.arrangement(), SpectrumView::Arrangement::Stacked);
        QVERIFY(view.ovRect()->visible());
        QVERIFY(view.ovRect()->rect().top() > view.qkRect()->rect().bottom());

        checkSpectrum(view, QSize(330, 230), 2.0);
        QCOMPARE(view.arrangement(), SpectrumView::Arrangement::QKOnly);
        QVERIFY(!view.ovRect()->visible());
        QVERIFY(view.hiddenPanelNote().contains("W_OV hidden"));
        checkSpectrum(view, QSize(400, 230), 1.5);  // room for the panel's name to say it too
        QCOMPARE(view.arrangement(), SpectrumView::Arrangement::QKOnly);
        QVERIFY2(view.qkRect()->axis(QCPAxis::atTop)->label().contains("W_OV"),
                 qPrintable(view.qkRect()->axis(QCPAxis::atTop)->label()));

        checkSpectrum(view, QSize(900, 300), 1.0);  // room again: both panels are back
        QCOMPARE(view.arrangement(), SpectrumView::Arrangement::SideBySide);
        QVERIFY(view.ovRect()->visible());
        QVERIFY(view.hiddenPanelNote().isEmpty());
    }

    void statusFactsFitTheirLabels() {
        StatusPanel status;
        status.showAnalysis(*analysisOf(64, 8, 8), 12.0);
        const QString full = status.text();
        QVERIFY(full.contains("(2\u00B7d_model\u00B7d_k)"));
        QVERIFY(full.contains("min(d_k, d_model) = 8"));
        for (int width : {1400, 900, 600, 380}) {
            QFont font = status.font();
            for (double scale : {1.0, 2.0}) {
                font.setPointSizeF(QApplication::font().pointSizeF() * scale);
                status.setFont(font);
                status.resize(width, 120);
                status.show();
                QVERIFY(QTest::qWaitForWindowExposed(&status));
                QApplication::processEvents();
                QCOMPARE(status.text(), full);  // the whole facts stay available
                for (auto* fact : status.findChildren<FittedLabel*>()) {
                    const double shown = QFontMetricsF(fact->font()).horizontalAdvance(fact->text());
                    QVERIFY2(shown <= fact->contentsRect().width(),
                             qPrintable(QStringLiteral("%1 px at %2x: \"%3\" in %4 px")
                                            .arg(width).arg(scale).arg(fact->text()).arg(fact->contentsRect().width())));
                    QVERIFY(!fact->text().isEmpty());
                    if (fact->text() != fact->fullText()) QVERIFY(fact->toolTip().contains(fact->fullText()));
                }
            }
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestLegibility)
#include "test_legibility.moc"
