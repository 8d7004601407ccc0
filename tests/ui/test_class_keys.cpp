// Small things a class trips on (issue 21), driven through the keyboard as a teacher does:
//  - Ctrl+- makes the fonts smaller (it did nothing: the platform's ZoomOut is Ctrl+- too, and
//    a shortcut given twice is ambiguous); Ctrl+= larger; Ctrl+0 restores the fonts and the docks;
//  - no control's Alt+letter is also a menu's (Alt+L was the Lessons menu and the Lock box);
//  - K/V heads typed equal to heads follows heads, so lowering heads from 8 to 4 is no error;
//    fewer K/V heads than heads (GQA on purpose) stays;
//  - a preset's name leaves the status line with the next change;
//  - a causal mask on cross-attention is said, in the controls and over the heads;
//  - the Score tab says a fully masked row is 0/0, and names each bias term with "=" (it
//    wrote "x_i W_i^Q b_k^T 0", which reads as a product with zero);
//  - the Projections title says sliced heads (the identity initialiser, lesson 3 step 2) read
//    only their slice, and learned ones the whole embedding (it said "whole" for both).
#include <QAbstractButton>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QSpinBox>
#include <QShortcut>
#include <QtTest>
#include "QtTestGroup.h"

#include "WindowTestSupport.h"
#include "ControlsDock.h"
#include "MainWindow.h"
#include "FusedProjectionsView.h"
#include "HeadGridView.h"
#include "ScoreBreakdownView.h"
#include "Session.h"
#include "StatusPanel.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

QChar mnemonicOf(const QString& text) {
    const QKeySequence key = QKeySequence::mnemonic(text);
    if (key.isEmpty()) return {};
    return QChar(key[0].key()).toLower();
}

}  // namespace

class TestClassKeys : public QObject {
    Q_OBJECT

private slots:
    void zoomKeysWork() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_Minus, Qt::ControlModifier);
        QVERIFY2(window.viewOptions().font_scale < 0.99,
                 qPrintable(QStringLiteral("Ctrl+- left the font scale at %1").arg(window.viewOptions().font_scale)));
        QTest::keyClick(&window, Qt::Key_Equal, Qt::ControlModifier);
        QTest::keyClick(&window, Qt::Key_Equal, Qt::ControlModifier);
        QVERIFY2(window.viewOptions().font_scale > 1.01,
                 qPrintable(QStringLiteral("Ctrl+= left the font scale at %1").arg(window.viewOptions().font_scale)));
    }

    void ctrlZeroRestoresFontsAndDocks() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QDockWidget* spectra = window.findChild<QDockWidget*>(QStringLiteral("spectrum_dock"));
        QVERIFY(spectra);
        const bool controls_shown = window.controls()->isVisible(), spectra_shown = spectra->isVisible();
        window.controls()->hide();
        spectra->hide();
        QTest::keyClick(&window, Qt::Key_Equal, Qt::ControlModifier);
        QTest::keyClick(&window, Qt::Key_0, Qt::ControlModifier);
        QCOMPARE(window.viewOptions().font_scale, 1.0);
        QCOMPARE(window.controls()->isVisible(), controls_shown);
        QCOMPARE(spectra->isVisible(), spectra_shown);
    }

    void noControlSharesItsAltKeyWithAMenu() {
        MainWindow window(noSettings());
        QHash<QChar, QString> menus;
        for (QAction* menu : window.menuBar()->actions())
            if (const QChar c = mnemonicOf(menu->text()); !c.isNull()) menus.insert(c, menu->text());
        QVERIFY(menus.contains(QLatin1Char('l')));  // &Lessons
        QStringList clashes;
        const auto check = [&](const QString& text) {
            const QChar c = mnemonicOf(text);
            if (!c.isNull() && menus.contains(c))
                clashes << QStringLiteral("Alt+%1: \"%2\" and the menu \"%3\"").arg(c, text, menus.value(c));
        };
        for (QLabel* label : window.controls()->findChildren<QLabel*>())
            if (label->buddy()) check(label->text());
        // A typeset label ("d_&model" as rich text) gives its Alt key to a QShortcut of its own.
        for (QShortcut* key : window.controls()->findChildren<QShortcut*>(QStringLiteral("mnemonic")))
            check(QStringLiteral("&") + key->key().toString().section(QLatin1Char('+'), -1).toLower());
        for (QAbstractButton* button : window.controls()->findChildren<QAbstractButton*>()) check(button->text());
        QVERIFY2(clashes.isEmpty(), qPrintable(clashes.join(QStringLiteral("; "))));
    }

    void kvHeadsFollowHeadsUnlessChosenForGqa() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        auto* heads = window.controls()->findChild<QSpinBox*>(QStringLiteral("heads"));
        auto* kv = window.controls()->findChild<QSpinBox*>(QStringLiteral("kv_heads"));
        QVERIFY(heads && kv);
        QCOMPARE(heads->value(), 8);
        typeIntoSpinBox(kv, QStringLiteral("8"));  // typed, equal to heads: plain multi-head attention
        typeIntoSpinBox(heads, QStringLiteral("4"));
        QVERIFY2(window.session()->problems().isEmpty(), qPrintable(window.session()->problems().join(QLatin1Char(' '))));
        QCOMPARE(window.session()->config().heads, 4);
        QCOMPARE(window.session()->config().kvHeads(), 4);
        // GQA on purpose: 2 K/V heads for 4 query heads stays 2 when heads goes to 8.
        typeIntoSpinBox(kv, QStringLiteral("2"));
        typeIntoSpinBox(heads, QStringLiteral("8"));
        QVERIFY2(window.session()->problems().isEmpty(), qPrintable(window.session()->problems().join(QLatin1Char(' '))));
        QCOMPARE(window.session()->config().kvHeads(), 2);
    }

    void presetNameLeavesTheStatusLineWithTheNextChange() {
        MainWindow window(noSettings());
        QAction* preset = nullptr;
        for (QAction* top : window.menuBar()->actions())
            if (QString(top->text()).remove(QLatin1Char('&')) == QLatin1String("Presets") && top->menu())
                preset = top->menu()->actions().value(0);
        QVERIFY(preset);
        preset->trigger();
        QVERIFY2(window.statusPanel()->text().contains(QStringLiteral("Preset: ")), qPrintable(window.statusPanel()->text()));
        auto* heads = window.controls()->findChild<QSpinBox*>(QStringLiteral("heads"));
        heads->setValue(heads->value() == 2 ? 4 : 2);  // as the arrows do
        QVERIFY2(!window.statusPanel()->text().contains(QStringLiteral("Preset: ")), qPrintable(window.statusPanel()->text()));
    }

    void causalMaskOnCrossAttentionIsSaid() {
        MainWindow window(noSettings());
        Config c;
        c.source_text = "Le chat dort";
        c.mask = MaskKind::Causal;
        window.setConfig(c);
        QString error;
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        auto* problems = window.controls()->findChild<QLabel*>(QStringLiteral("problems"));
        QVERIFY(problems);
        QVERIFY2(!problems->isHidden() && problems->text().contains(QStringLiteral("causal mask applies to cross-attention")),
                 qPrintable(problems->text()));
        window.headGrid()->replotNow();
        QVERIFY2(window.headGrid()->subtitleElement()->text().contains(QStringLiteral("across two sentences")),
                 qPrintable(window.headGrid()->subtitleElement()->text()));
        c.mask = MaskKind::None;  // and gone when it no longer holds
        window.setConfig(c);
        QVERIFY(problems->isHidden());
    }

    void scoreTabSaysFullyMaskedRowIsZeroOverZero() {
        MainWindow window(noSettings());
        Config c;
        c.mask = MaskKind::Causal;
        c.padded_keys = {0};  // query 0 may see only key 0, which is padding
        c.bias = true;
        window.setConfig(c);
        QString error;
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        ScoreBreakdownView* score = window.scoreBreakdownView();
        score->setCell(0, 0);
        score->replotNow();
        QVERIFY2(score->arithmetic().contains(QStringLiteral("0/0")), qPrintable(score->arithmetic()));
        score->setCell(3, 1);  // a cell with a score, biases on
        score->replotNow();
        QString text = score->arithmetic();
        text.replace(QChar(QChar::Nbsp), QLatin1Char(' '));  // a term's spaces do not break (issue 36 item 14)
        QVERIFY2(text.contains(QStringLiteral("x_i W_i^Q b_kᵀ = ")) && text.contains(QStringLiteral("b_q b_kᵀ = ")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QRegularExpression(QStringLiteral("b_kᵀ -?[0-9]"))), qPrintable(text));
    }

    void projectionsTitleSaysWhatEachHeadReads() {
        MainWindow window(noSettings());
        window.resize(1400, 900);
        window.show();
        QVERIFY(window.showTab(QStringLiteral("Projections")));
        Config c;  // d_model 64, 8 heads of d_k 8
        window.setConfig(c);
        QString error;
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        window.projectionsView()->replotNow();
        QVERIFY2(window.projectionsView()->title().contains(QStringLiteral("all 64 rows")),
                 qPrintable(window.projectionsView()->title()));
        c.init = InitKind::Identity;
        window.setConfig(c);
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        window.projectionsView()->replotNow();
        const QString title = window.projectionsView()->title();
        QVERIFY2(title.contains(QRegularExpression(QStringLiteral("only its|its own"))) && !title.contains(QStringLiteral("all 64")),
                 qPrintable(title));
    }
};

HEADSCOPE_QTEST_MAIN(TestClassKeys)
#include "test_class_keys.moc"
