// The head grid's axes carry the tokens (row 0 on top); where a word per cell does not fit, every
// k-th word with its position, the axis title saying so; a kept label layout is what a fresh view
// would make.
#include <QtTest>
#include "QtTestGroup.h"

#include "Analysis.h"
#include "HeadGridTestSupport.h"
#include "HeadGridView.h"
#include "TokenThinning.h"

using namespace headscope;
using namespace headscope::ui;
using headscope::ui::testing::gridAnalysis;

namespace {

// The axes that carry words in view (column 0's queries, the last head's keys) thinned to
// every k-th word (k > 1) written "i:word", the others blank, and titled "every kth ...".
void checkThinned(const HeadGridView& view, const Analysis& a, const QString& when) {
    const int last = view.headCount() - 1;
    const struct {
        QCPAxis* axis;
        int stride;
        const std::vector<std::string>* tokens;
        QString noun;
    } sides[] = {{view.headRect(0)->axis(QCPAxis::atLeft), view.queryLabelStride(), &a.input.query.tokens, QStringLiteral("query")},
                 {view.headRect(last)->axis(QCPAxis::atBottom), view.keyLabelStride(), &a.input.key_value.tokens, QStringLiteral("key")}};
    for (const auto& side : sides) {
        const QString what = when + QStringLiteral(", ") + side.noun + QStringLiteral(" axis");
        const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(side.axis->ticker());
        QVERIFY2(ticker && side.axis->tickLabels(), qPrintable(what + QStringLiteral(": positions alone, no words")));
        QVERIFY2(side.stride > 1, qPrintable(what + QStringLiteral(": not thinned")));
        const QStringList shown = ticker->ticks().values();
        QCOMPARE(shown.size(), int(side.tokens->size()));
        for (int i = 0; i < shown.size(); ++i) {
            const QString expected =
                i % side.stride == 0 ? QStringLiteral("%1:%2").arg(i).arg(QString::fromStdString((*side.tokens)[std::size_t(i)])) : QString();
            QVERIFY2(shown[i] == expected, qPrintable(QStringLiteral("%1: label %2 is '%3', not '%4'").arg(what).arg(i).arg(shown[i], expected)));
        }
        QCOMPARE(side.axis->label(), everyKth(side.stride, side.noun));
    }
}

}  // namespace

class TestHeadGridLabels : public QObject {
    Q_OBJECT

private slots:
    void keptLabelLayoutsAreWhatAFreshViewWouldMake() {
        Config config;
        config.d_model = 768;
        config.heads = 12;
        config.text = "The quick brown fox jumps over the lazy dog while the cat sleeps on the mat";
        const auto first = std::make_shared<const Analysis>(analyze(config, false));
        config.temperature = 1.0001;  // the same words, geometry and (to the bars' ticks) ranges
        const auto warmer = std::make_shared<const Analysis>(analyze(config, false, first.get()));
        config.seed = 5;  // new weights, other titles ("seed 5"), the same words
        const auto reseeded = std::make_shared<const Analysis>(analyze(config, false, warmer.get()));
        // The same 16 words in another order: the same widths, so only the words say it changed.
        config.text = "the mat The quick brown fox jumps over the lazy dog while the cat sleeps on";
        const auto other_words = std::make_shared<const Analysis>(analyze(config, false, reseeded.get()));

        HeadGridView kept;
        kept.resize(1000, 700);
        kept.show();
        QVERIFY(QTest::qWaitForWindowExposed(&kept));
        kept.setAnalysis(first);
        const int reused = kept.labelLayoutsReused();
        // Whatever was kept is what the label work would have given.
        const auto sameAsFresh = [&](const std::shared_ptr<const Analysis>& a) {
            HeadGridView fresh;
            fresh.resize(1000, 700);
            fresh.show();
            QVERIFY(QTest::qWaitForWindowExposed(&fresh));
            fresh.setAnalysis(a);
            QCOMPARE(fresh.labelLayoutsReused(), 0);
            QCOMPARE(kept.titleElement()->text(), fresh.titleElement()->text());
            QCOMPARE(kept.subtitleElement()->text(), fresh.subtitleElement()->text());
            for (int h = 0; h < 12; ++h) {
                for (auto type : {QCPAxis::atBottom, QCPAxis::atLeft, QCPAxis::atTop}) {
                    const QCPAxis* x = kept.headRect(h)->axis(type);
                    const QCPAxis* y = fresh.headRect(h)->axis(type);
                    QCOMPARE(x->tickLabels(), y->tickLabels());
                    QCOMPARE(x->tickLabelRotation(), y->tickLabelRotation());
                    QCOMPARE(x->label(), y->label());
                    const auto tx = qSharedPointerDynamicCast<QCPAxisTickerText>(x->ticker());
                    const auto ty = qSharedPointerDynamicCast<QCPAxisTickerText>(y->ticker());
                    QCOMPARE(bool(tx), bool(ty));
                    if (tx) QCOMPARE(tx->ticks(), ty->ticks());
                }
                QCOMPARE(kept.headRect(h)->rect(), fresh.headRect(h)->rect());
            }
        };
        kept.setAnalysis(warmer);
        QCOMPARE(kept.labelLayoutsReused(), reused + 1);
        sameAsFresh(warmer);
        kept.setAnalysis(reseeded);  // kept when the bars' numbers keep their widths
        sameAsFresh(reseeded);
        const int before_words = kept.labelLayoutsReused();
        kept.setAnalysis(other_words);  // other words: laid out again
        QCOMPARE(kept.labelLayoutsReused(), before_words);
        sameAsFresh(other_words);
        const auto ticks = qSharedPointerDynamicCast<QCPAxisTickerText>(kept.headRect(0)->axis(QCPAxis::atLeft)->ticker());
        QVERIFY(ticks);
        // The first word is always shown (with its position where the words are thinned).
        QCOMPARE(ticks->ticks().first(), kept.queryLabelStride() > 1 ? QStringLiteral("0:the") : QStringLiteral("the"));
    }

    void axesAreLabelledWithTokensRowZeroOnTop() {
        const auto a = gridAnalysis(2);
        HeadGridView view;
        view.setAnalysis(a);
        QCPAxisRect* rect = view.headRect(1);
        QVERIFY(rect->axis(QCPAxis::atLeft)->rangeReversed());
        auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(rect->axis(QCPAxis::atBottom)->ticker());
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().size(), a->nKeyValue());
        QCOMPARE(ticker->ticks().value(1), QString("animal"));
        auto rows = qSharedPointerDynamicCast<QCPAxisTickerText>(rect->axis(QCPAxis::atLeft)->ticker());
        QVERIFY(rows);
        QCOMPARE(rows->ticks().value(0), QString("The"));
        QCOMPARE(rect->axis(QCPAxis::atTop)->label(), QString("head 1"));
    }

    // Long sequences keep words (issue 21): every k-th word with its position, never bare
    // positions while two words fit; 64 random tokens included.
    void longSequencesShowEveryKthWordWithItsPosition() {
        Config config;
        config.heads = 2;
        config.text.clear();
        config.seq_len = 64;
        HeadGridView view;
        view.resize(1024, 768);
        view.setViewport(QRect(0, 0, 1024, 768));
        view.setAnalysis(std::make_shared<const Analysis>(analyze(config, false)));
        view.replotNow();
        view.replotNow();
        QCOMPARE(view.colorMap(0)->data()->keySize(), 64);
        checkThinned(view, *view.analysis(), QStringLiteral("64 random tokens"));
    }

    // The 41-token sentence and the induction model's 45 letters at 1024 x 768 in a grid of 4
    // heads: words thin to every k-th WITH its position ("12:the", "3:d"), so that a thinned
    // axis never reads like the sequence, and the axis title says "every kth key"; in a view
    // large enough, every word without positions.
    void thinnedWordsCarryTheirPositions_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("tokens");
        const QStringList words = QStringLiteral("The animal didn't cross the street because it was too tired to "
                                                 "walk any further in the rain").split(QLatin1Char(' '));
        QString sentence;
        for (int i = 0; i < 41; ++i) sentence += words[i % words.size()] + QLatin1Char(' ');
        QTest::newRow("41 words") << sentence.trimmed() << 41;
        QString letters;
        for (int i = 0; i < 45; ++i) letters += QChar(QLatin1Char(char('a' + (i * 7) % 26))) + QLatin1Char(' ');
        QTest::newRow("45 letters (induction input)") << letters.trimmed() << 45;
    }
    void thinnedWordsCarryTheirPositions() {
        QFETCH(QString, text);
        QFETCH(int, tokens);
        Config config;
        config.heads = 4;
        config.text = text.toStdString();
        const auto a = std::make_shared<const Analysis>(analyze(config, false));
        QCOMPARE(a->nQuery(), tokens);
        HeadGridView view;
        view.resize(1024, 768);
        view.setViewport(QRect(0, 0, 1024, 768));
        view.setAnalysis(a);
        view.replotNow();
        view.replotNow();
        checkThinned(view, *a, QStringLiteral("4 heads at 1024 x 768"));

        HeadGridView large;  // one head on a large canvas: every word, no positions, no "every"
        Config one = config;
        one.heads = 1;
        const auto b = std::make_shared<const Analysis>(analyze(one, false));
        large.resize(2400, 2400);
        large.setViewport(QRect(0, 0, 2400, 2400));
        large.setAnalysis(b);
        large.replotNow();
        large.replotNow();
        QCOMPARE(large.keyLabelStride(), 1);
        QCOMPARE(large.queryLabelStride(), 1);
        for (QCPAxis* axis : {large.headRect(0)->axis(QCPAxis::atLeft), large.headRect(0)->axis(QCPAxis::atBottom)}) {
            const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
            QVERIFY(ticker);
            QStringList words;
            for (const std::string& t : b->input.query.tokens) words << QString::fromStdString(t);
            QCOMPARE(QStringList(ticker->ticks().values()), words);
            QVERIFY(axis->label().isEmpty());
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestHeadGridLabels)
#include "test_head_grid_labels.moc"
