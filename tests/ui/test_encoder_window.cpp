// An encoder in the window (issue 34): BERT written by transformers with a small vocab.txt attends
// both ways, the model dock lists the fill-mask guesses at every [MASK], knocked-out heads change
// them, the "Looks at" tab's shares (grid and sorted) are the engine's, and a sentence pair draws
// its border and its A -> B token lines.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>

#include "WindowTestSupport.h"
#include "AblationTab.h"
#include "ControlsDock.h"
#include "HeadDetailView.h"
#include "HeadPatternsView.h"
#include "MainWindow.h"
#include "Session.h"
#include "TokenLinesView.h"
#include "TokenLogProbView.h"
#include "model/Forward.h"
#include "model/HeadPatterns.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

// transformers' bert_pair checkpoint with a vocab.txt of its 300 ids: a few words, the rest unused.
bool writeBertFolder(const QString& path) {
    const QDir from(QStringLiteral(HEADSCOPE_TEST_DATA_DIR "/hf_extra/bert_pair"));
    for (const QString& file : {QStringLiteral("config.json"), QStringLiteral("model.safetensors")})
        if (!QFile::copy(from.filePath(file), QDir(path).filePath(file))) return false;
    QFile vocab(QDir(path).filePath(QStringLiteral("vocab.txt")));
    if (!vocab.open(QIODevice::WriteOnly)) return false;
    QStringList lines = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "."};
    while (lines.size() < 300) lines << QStringLiteral("[unused%1]").arg(lines.size());
    return vocab.write(lines.join('\n').toUtf8() + '\n') > 0;
}

// The window shown, then the BERT folder written to `path` opened in it.
void openBert(MainWindow& window, const QString& path) {
    QVERIFY(writeBertFolder(path));
    window.show();
    QVERIFY(window.waitForCompleteUpdate(60000));
    QString error;
    QVERIFY2(window.openModel(path, &error), qPrintable(error));
    QVERIFY(window.session()->waitForIdle(60000));
}

void setText(MainWindow& window, const QString& text) {
    Config c = window.session()->config();
    c.text = text.toStdString();
    window.session()->setConfig(c);
}

}  // namespace

class TestEncoderWindow : public QObject {
    Q_OBJECT

private slots:
    // Issue 34: an encoder (BERT, written by transformers, with a small vocab.txt of its 300 ids) opens
    // attending both ways: the mask is "none" and fixed, every head's first query sees the last key, and
    // the model dock lists the guesses at the [MASK] (the engine's, at that position).
    void anEncoderAttendsBothWaysAndGuessesItsMaskedToken() {
        QTemporaryDir dir;
        MainWindow window(noSettings());
        openBert(window, dir.path());
        if (QTest::currentTestFailed()) return;
        window.session()->setConfig([&] {
            Config c = window.session()->config();
            c.text = "the cat [MASK] on the mat.";
            return c;
        }());
        QVERIFY(window.session()->waitForIdle(60000));
        QCOMPARE(int(window.session()->config().mask), int(MaskKind::None));
        auto* mask = window.controls()->findChild<QComboBox*>(QStringLiteral("mask"));
        QVERIFY(mask && !mask->isEnabled());
        const model::Trace& trace = *window.session()->trace();
        QCOMPARE(trace.n(), 9);  // [CLS] the cat [MASK] on the mat . [SEP]
        QVERIFY(trace.layers[0].attention.heads[0].weights(0, 8) > 0);
        QCOMPARE(window.session()->fillMask().size(), std::size_t(1));
        QCOMPARE(window.session()->fillMask().front().position, 3);
        auto* label = window.findChild<QLabel*>(QStringLiteral("next_tokens_label"));
        QCOMPARE(label->text(), QStringLiteral("Fill-mask at position 3:"));
        const std::vector<model::NextToken> expected = model::topTokensAt(*window.session()->source().model, trace, 3, 10);
        auto* next = window.findChild<QListWidget*>(QStringLiteral("next_tokens"));
        QCOMPARE(next->count(), 10);
        QVERIFY2(next->item(0)->text().startsWith(QString::number(expected[0].probability, 'f', 3)), qPrintable(next->item(0)->text()));
        // Heads knocked out (issue 34 item 4): the Ablation tab's strip shows the intact guess at the
        // [MASK] and its log-probability with the heads on and off, as the two runs' logits give it.
        window.session()->setAblation([] {
            model::Ablation off;
            for (int h = 0; h < 4; ++h) off.add({1, h});
            return off;
        }());
        QVERIFY(window.session()->waitForIdle(60000));
        const auto effects = window.session()->effects();
        QVERIFY(effects && effects->encoder && effects->has_logprobs);
        QCOMPARE(effects->before.tokens.size(), std::size_t(1));
        QCOMPARE(effects->after.tokens.size(), std::size_t(1));
        QCOMPARE(effects->before.tokens[0].position, 3);
        QCOMPARE(effects->before.tokens[0].id, expected[0].id);
        QVERIFY(std::abs(effects->before.tokens[0].logprob - std::log(expected[0].probability)) < 1e-9);
        const model::Model& bert = *window.session()->source().model;
        const int vocab = bert.config.vocab_size;
        double after = 0;
        for (const model::NextToken& t : model::topTokensAt(bert, *window.session()->trace(), 3, vocab))
            if (t.id == expected[0].id) after = std::log(t.probability);
        QVERIFY(std::abs(effects->after.tokens[0].logprob - after) < 1e-9);
        QVERIFY(effects->after.tokens[0].logprob != effects->before.tokens[0].logprob);
        TokenLogProbView* strip = window.ablationTab()->strip();
        for (int i = 0; i < window.centralTabs()->count(); ++i)  // the tab holding the Ablation page (a scroll area)
            if (window.centralTabs()->widget(i)->isAncestorOf(window.ablationTab()) ||
                window.centralTabs()->widget(i) == window.ablationTab())
                window.centralTabs()->setCurrentIndex(i);
        QCoreApplication::processEvents();
        QCOMPARE(strip->afterBars()->data()->size(), 1);
        QCOMPARE(strip->afterBars()->data()->constBegin()->key, 3.0);
        QCOMPARE(strip->afterBars()->data()->constBegin()->value, effects->after.tokens[0].logprob);
        QVERIFY2(strip->title().contains(QString::fromStdString(expected[0].token)), qPrintable(strip->title()));
        window.session()->restoreAll();
        QVERIFY(window.session()->waitForIdle(60000));
        // What each head looks at: the shares drawn are the engine's; a click on a cell shows that head.
        auto* patterns = qobject_cast<HeadPatternsView*>(window.tabView("head_patterns"));
        QVERIFY(patterns);
        window.centralTabs()->setCurrentWidget(patterns);
        patterns->setPattern(model::HeadPattern::Separator);
        patterns->replotNow();
        const Eigen::MatrixXf shares = model::headPatternShares(trace, model::HeadPattern::Separator);
        QCOMPARE(patterns->shares().rows(), 2);
        QVERIFY(patterns->shares().isApprox(shares));
        QVERIFY2(patterns->title().contains(QStringLiteral("[SEP] (9 of 9 queries have one)")), qPrintable(patterns->title()));
        emit patterns->cellActivated(1, 2);
        QVERIFY(window.session()->waitForIdle(60000));
        QCOMPARE(window.session()->source().layer, 1);
        QCOMPARE(window.session()->head(), 2);
        // Sorted (issue 34 item 5): the heads as bars, strongest first, each bar the engine's share;
        // a click on a bar's row shows its head.
        patterns->setSorted(true);
        patterns->replotNow();
        const std::vector<model::RankedHead> ranked = model::headsByShare(shares);
        const std::vector<model::RankedHead> bars = patterns->barsShown();
        QCOMPARE(bars.size(), ranked.size());  // 2 x 4 heads: every one fits
        for (std::size_t r = 0; r < bars.size(); ++r) {
            QCOMPARE(bars[r].layer, ranked[r].layer);
            QCOMPARE(bars[r].head, ranked[r].head);
            QVERIFY(std::abs(bars[r].share - shares(bars[r].layer, bars[r].head)) < 1e-6f);
            if (r > 0) QVERIFY(bars[r].share <= bars[r - 1].share);
        }
        QCPAxis* rows = patterns->plot()->axisRect()->axis(QCPAxis::atLeft);
        QCPAxis* across = patterns->plot()->axisRect()->axis(QCPAxis::atBottom);
        const QPoint on_last(int(across->coordToPixel(0.02)), int(rows->coordToPixel(double(bars.size() - 1))));
        int layer = -1, head = -1;
        QVERIFY(patterns->cellAt(on_last, &layer, &head));
        QCOMPARE(layer, bars.back().layer);
        QCOMPARE(head, bars.back().head);
        patterns->setSorted(false);
        // A sentence pair in the second box: [CLS] A [SEP] B [SEP] with types 0 then 1, and the border drawn
        // across the selected head's heatmap (a line before B's first row and one before its first column).
        window.session()->setConfig([&] {
            Config c = window.session()->config();
            c.text = "the cat";
            c.source_text = "sat on the mat";
            return c;
        }());
        QVERIFY(window.session()->waitForIdle(60000));
        const model::Trace& pair = *window.session()->trace();
        QCOMPARE(pair.ids, (std::vector<int>{2, 5, 6, 3, 7, 8, 5, 9, 3}));
        QCOMPARE(pair.options.token_types, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 1}));
        QCOMPARE(window.session()->analysis()->second_sentence, 4);
        // A padded key of the pair is counted in the model's tokens (9), not the demo's words of B
        // (4): key 8, the last [SEP], is masked for every query; key 9 is one clear message.
        QSignalSpy invalid(window.session(), &Session::invalid);
        QSignalSpy failed(window.session(), &Session::failed);
        window.session()->setConfig([&] {
            Config c = window.session()->config();
            c.padded_keys = {8};
            return c;
        }());
        QVERIFY(window.session()->waitForIdle(60000));
        QCOMPARE(invalid.count(), 0);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(window.session()->trace()->options.attention.padded_keys, std::vector<int>{8});
        QCOMPARE(window.session()->trace()->layers[0].attention.heads[0].weights(0, 8), 0.0f);
        window.session()->setConfig([&] {
            Config c = window.session()->config();
            c.padded_keys = {9};
            return c;
        }());
        QVERIFY(window.session()->waitForIdle(60000));
        QCOMPARE(failed.count() + invalid.count(), 1);
        const QString message = failed.isEmpty() ? invalid.first().first().toStringList().join(' ') : failed.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("padded key 9 does not exist: the 9 tokens are numbered 0 to 8")), qPrintable(message));
        window.session()->setConfig([&] {
            Config c = window.session()->config();
            c.padded_keys.clear();
            return c;
        }());
        QVERIFY(window.session()->waitForIdle(60000));
        window.centralTabs()->setCurrentIndex(0);
        auto* focus = window.findChild<HeadDetailView*>(QStringLiteral("head_focus"));
        QVERIFY(focus);
        focus->replotNow();
        int borders = 0;
        for (int i = 0; i < focus->plot()->itemCount(); ++i) borders += qobject_cast<QCPItemLine*>(focus->plot()->item(i)) ? 1 : 0;
        QCOMPARE(borders, 2);
        // Token lines: from A's queries to B's keys only, every one the engine's weight.
        auto* lines = window.tokenLinesView();
        window.centralTabs()->setCurrentWidget(lines);
        QVERIFY(lines->findChild<QComboBox*>(QStringLiteral("token_lines_sentences"))->isVisibleTo(lines));
        lines->setSentences(TokenLinesView::Sentences::AToB);
        lines->replotNow();
        QVERIFY(!lines->lines().empty());
        for (const TokenLinesView::Line& l : lines->lines()) QVERIFY(l.query < 4 && l.key >= 4);
        lines->setSentences(TokenLinesView::Sentences::BToA);
        lines->replotNow();
        for (const TokenLinesView::Line& l : lines->lines()) QVERIFY(l.query >= 4 && l.key < 4);
    }

    // Two masks: the dock names both positions and lists each one's top 5 under its heading, each
    // the engine's probability at that position.
    void everyMaskedPositionIsListed() {
        QTemporaryDir dir;
        MainWindow window(noSettings());
        openBert(window, dir.path());
        if (QTest::currentTestFailed()) return;
        setText(window, QStringLiteral("the [MASK] sat on the [MASK]."));
        QVERIFY(window.session()->waitForIdle(60000));
        const model::Trace& trace = *window.session()->trace();  // [CLS] the [MASK] sat on the [MASK] . [SEP]
        const model::Model& bert = *window.session()->source().model;
        QCOMPARE(window.session()->fillMask().size(), std::size_t(2));
        auto* label = window.findChild<QLabel*>(QStringLiteral("next_tokens_label"));
        QCOMPARE(label->text(), QStringLiteral("Fill-mask at positions 2, 6:"));
        auto* next = window.findChild<QListWidget*>(QStringLiteral("next_tokens"));
        QCOMPARE(next->count(), 2 * (1 + 5));
        int row = 0;
        for (int position : {2, 6}) {
            QCOMPARE(next->item(row)->text(), QStringLiteral("at position %1:").arg(position));
            QVERIFY(!(next->item(row)->flags() & Qt::ItemIsSelectable));
            ++row;
            const std::vector<model::NextToken> expected = model::topTokensAt(bert, trace, position, 5);
            for (const model::NextToken& t : expected) {
                const QString shown = next->item(row++)->text();
                QVERIFY2(shown.startsWith(QString::number(t.probability, 'f', 3)) && shown.endsWith(QStringLiteral("(id %1)").arg(t.id)),
                         qPrintable(shown));
            }
        }
        setText(window, QStringLiteral("the cat sat"));
        QVERIFY(window.session()->waitForIdle(60000));
        QVERIFY(window.session()->fillMask().empty());
        QCOMPARE(next->count(), 0);
        QCOMPARE(label->text(), QStringLiteral("Fill-mask: put [MASK] in the text"));
    }
};

HEADSCOPE_QTEST_MAIN(TestEncoderWindow)
#include "test_encoder_window.moc"
