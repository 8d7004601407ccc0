// Lessons in the window at a projector's size (issue 21): lesson 2 step 5 draws its own picture,
// (X W_1) W_2 = X (W_1 W_2) with the numbers the engine computes.

#include <QTabWidget>
#include <QtTest>

#include "Analysis.h"
#include "Engine.h"
#include "LessonDock.h"
#include "MainWindow.h"
#include "ProjectionProductView.h"
#include "Session.h"
#include "WindowTestSupport.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

// The colour map's cells as a matrix (cell(c, r) is entry (r, c)).
Eigen::MatrixXd cells(QCPColorMap* map) {
    QCPColorMapData* data = map->data();
    Eigen::MatrixXd m(data->valueSize(), data->keySize());
    for (int r = 0; r < m.rows(); ++r)
        for (int c = 0; c < m.cols(); ++c) m(r, c) = data->cell(c, r);
    return m;
}

// max |a - b| / max |b|; infinity when the shapes differ.
double relativeGap(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols() || b.size() == 0) return INFINITY;
    return (a - b).cwiseAbs().maxCoeff() / std::max(1e-30, b.cwiseAbs().maxCoeff());
}

}  // namespace

class TestLessonViews : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadScopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_lesson_views"));
    }

    // Lesson 2 step 5, "Projecting twice is one linear map": its tab holds X W_Q,i, (X W_Q,i) W_K,i^T
    // and X W_QK,i of the step's head, equal to the engine's Q (its head block) and to
    // X mergedQK() within 1e-5 of the largest entry (float products of d_model terms against double),
    // and its title prints the largest difference of the two orders, below the rounding bound.
    void lessonTwoShowsTheProductInBothOrdersWithItsNumbers() {
        MainWindow window(noSettings());
        window.resize(1024, 768);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QString error;
        QVERIFY2(window.openLesson(2, &error), qPrintable(error));
        LessonDock* dock = window.lessonDock();
        QCOMPARE(dock->lesson()->steps[4].show, std::string("projection_product"));
        dock->goToStep(4);
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        ProjectionProductView* view = window.projectionProductView();
        QCOMPARE(window.centralTabs()->currentWidget(), static_cast<QWidget*>(view));
        const auto analysis = window.session()->analysis();
        const int head = window.session()->head();
        QTRY_VERIFY_WITH_TIMEOUT(view->product() && view->product()->head == head &&
                                     view->colorMap(ProjectionProductView::Twice)->data()->keySize() == analysis->weights().dModel(),
                                 60000);
        const Weights& w = analysis->weights();
        QVERIFY(!w.hasBias() || w.b_Q.isZero(0));  // so the engine's Q block is X W_Q,i
        const Eigen::MatrixXd X = analysis->input.query.X.cast<double>();
        const Eigen::MatrixXd engine_q = analysis->results.Q.middleCols(head * w.d_k, w.d_k).cast<double>();
        const Eigen::MatrixXd engine_merged = X * mergedQK(w, head).cast<double>();
        const Eigen::MatrixXd exact = X * w.queryHead(head).cast<double>() * w.keyHead(head).transpose().cast<double>();
        QVERIFY(relativeGap(cells(view->colorMap(ProjectionProductView::First)), engine_q) < 1e-5);
        QVERIFY(relativeGap(cells(view->colorMap(ProjectionProductView::Twice)), exact) < 1e-5);
        QVERIFY(relativeGap(cells(view->colorMap(ProjectionProductView::Merged)), engine_merged) < 1e-5);
        // The printed difference is that of the drawn panels, and float rounding only.
        const double drawn_difference = (cells(view->colorMap(ProjectionProductView::Twice)) -
                                         cells(view->colorMap(ProjectionProductView::Merged))).cwiseAbs().maxCoeff();
        QCOMPARE(view->product()->max_difference, drawn_difference);
        QVERIFY(drawn_difference <= view->product()->rounding_bound);
        QVERIFY(view->product()->rounding_bound < 1e-3 * view->product()->max_abs);
        const QString title = view->title().simplified();
        QVERIFY2(title.contains(QStringLiteral("Head %1").arg(head)), qPrintable(title));
        QVERIFY2(title.contains(QString::number(drawn_difference, 'g', 2)), qPrintable(title));
        QVERIFY2(title.contains(QString::number(view->product()->rounding_bound, 'g', 2)), qPrintable(title));
    }
};

QTEST_MAIN(TestLessonViews)
#include "test_lesson_views.moc"
