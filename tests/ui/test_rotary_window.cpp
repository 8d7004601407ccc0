// RoPE in the window beyond the main views (issue 22 item 4 leftovers), on the trained
// llama-induction checkpoint (skipped where ../shared/models is absent): the head detail
// dialog's Circuits tab draws W_QK,i(Delta) at the window's shared Delta, equal to core's
// rotatedCircuits within 1e-5, and its tab names that Delta; the window's export of the
// Circuits view writes the same Delta in the picture's title.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTabWidget>
#include <QtTest>
#include "QtTestGroup.h"
#include <algorithm>
#include <cmath>

#include "CircuitView.h"
#include "ExportDialog.h"
#include "HeadDetailDialog.h"
#include "MainWindow.h"
#include "RotaryCircuits.h"
#include "RotaryDelta.h"
#include "Session.h"
#include "WindowTestSupport.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

const QString kLlama = QStringLiteral(HEADSCOPE_SHARED_MODELS_DIR "/llama-induction");
const QString kRotaryText = QStringLiteral("abcdefgh abcdefgh");

// Largest |map cell - W(r, c)| over the matrix; infinity when the shapes differ.
double worstCell(QCPColorMap* map, const Eigen::MatrixXf& W) {
    QCPColorMapData* data = map->data();
    if (data->keySize() != W.cols() || data->valueSize() != W.rows()) return INFINITY;
    double worst = 0;
    for (int r = 0; r < W.rows(); ++r)
        for (int c = 0; c < W.cols(); ++c) worst = std::max(worst, std::abs(data->cell(c, r) - double(W(r, c))));
    return worst;
}

}  // namespace

class TestRotaryWindow : public QObject {
    Q_OBJECT

private slots:
    void headDialogDrawsTheRotatedCircuitAtTheSharedDelta() {
        if (!QDir(kLlama).exists()) QSKIP("../shared/models/llama-induction is absent: the rotary checkpoint is needed");
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QString error;
        QVERIFY2(window.openModel(kLlama, &error), qPrintable(error));
        window.setText(kRotaryText);
        QVERIFY(window.waitForCompleteUpdate(60000));
        const auto analysis = window.session()->analysis();
        QVERIFY(analysis->rotary.enabled());
        auto* delta = window.session()->findChild<RotaryDelta*>(QStringLiteral("rotary_delta"));
        QVERIFY(delta);

        const int head = 1;
        window.showHead(head);
        QVERIFY(window.waitForCompleteUpdate(60000));  // the session's circuits of the head
        HeadDetailDialog* dialog = window.headDetail();
        QVERIFY(dialog);
        for (int d : {0, 5}) {
            delta->setDelta(d);
            delta->waitForResult();
            QCOMPARE(delta->delta(), d);
            dialog->circuits()->replotNow();
            const RotatedCircuits expected =
                rotatedCircuits(analysis->weights(), analysis->rotary, head, d, analysis->config.rank_rtol, true);
            QVERIFY(dialog->circuits()->productShown(CircuitView::QK));
            const double worst = worstCell(dialog->circuits()->colorMap(CircuitView::QK), expected.W_QK);
            QVERIFY2(worst <= 1e-5, qPrintable(QStringLiteral("Δ = %1: %2").arg(d).arg(worst)));
            QVERIFY2(dialog->circuits()->title().contains(QStringLiteral("W_QK,i(Δ = %1)").arg(d)),
                     qPrintable(dialog->circuits()->title()));
            QVERIFY2(dialog->circuitsTabText().contains(QStringLiteral("Δ = %1").arg(d)), qPrintable(dialog->circuitsTabText()));
        }
        // At Delta = 5 the rotated product differs from W_Q W_K^T: the comparison above can tell them apart.
        const RotatedCircuits zero = rotatedCircuits(analysis->weights(), analysis->rotary, head, 0, 0, true);
        QVERIFY(worstCell(dialog->circuits()->colorMap(CircuitView::QK), zero.W_QK) > 1e-3);

        // File > Export of the W_QK views draws them at the window's Delta, here 3.
        delta->setDelta(3);
        delta->waitForResult();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (ViewKind kind : {ViewKind::CircuitQK, ViewKind::SpectrumQK}) {
            ExportRequest request;
            request.what = ExportRequest::What::View;
            request.view = kind;
            request.head = head;
            request.format = ImageFormat::Svg;
            request.path = dir.filePath(QStringLiteral("view.svg"));
            QVERIFY2(window.exportRequest(request, &error), qPrintable(error));
            QFile svg(request.path);
            QVERIFY(svg.open(QIODevice::ReadOnly));
            QVERIFY2(QString::fromUtf8(svg.readAll()).contains(QStringLiteral("Δ = 3")), "the export does not name Δ = 3");
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestRotaryWindow)
#include "test_rotary_window.moc"
