// The projection view holds exactly the head's W_i^Q, W_i^K and W_QK,i.
#include <QtTest>

#include "Analysis.h"
#include "ProjectionView.h"
#include "qcustomplot.h"

using namespace headscope;
using namespace headscope::ui;

class TestProjectionView : public QObject {
    Q_OBJECT

private slots:
    void holdsTheHeadsFactorsAndTheirProduct() {
        Config config;
        config.d_model = 48;
        config.heads = 6;  // d_k 8
        config.kv_heads = 3;
        auto analysis = std::make_shared<const Analysis>(analyze(config, false));
        ProjectionView view;
        view.resize(1000, 500);
        view.setAnalysis(analysis);
        view.setHead(3);
        const Weights& w = analysis->weights;
        const Eigen::MatrixXf qk = mergedQK(w, 3);
        QCPColorMapData* q = view.colorMap(ProjectionView::Query)->data();
        QCPColorMapData* k = view.colorMap(ProjectionView::Key)->data();
        QCPColorMapData* p = view.colorMap(ProjectionView::Product)->data();
        QCOMPARE(q->keySize(), 8);
        QCOMPARE(q->valueSize(), 48);
        QCOMPARE(p->keySize(), 48);
        for (int r = 0; r < 48; ++r) {
            for (int c = 0; c < 8; ++c) {
                QCOMPARE(q->cell(c, r), double(w.queryHead(3)(r, c)));
                QCOMPARE(k->cell(c, r), double(w.keyHead(3)(r, c)));  // GQA: key head 1
            }
            for (int c = 0; c < 48; ++c) QCOMPARE(p->cell(c, r), double(qk(r, c)));
        }
        QVERIFY(view.title().contains(QStringLiteral("rank 8")));
        // Signed data, symmetric colour range.
        const QCPRange range = view.colorMap(ProjectionView::Product)->dataRange();
        QCOMPARE(range.lower, -range.upper);
        QVERIFY(range.upper >= qk.cwiseAbs().maxCoeff());
    }

    void largeProductsAreNotFormedOnTheGuiThread() {
        Config config;
        config.d_model = 2048;
        config.heads = 32;  // d_model^2 d_k = 2.7e8 > kMaxProductWork
        config.text = "a b";
        auto analysis = std::make_shared<const Analysis>(analyze(config, false));
        ProjectionView view;
        view.setAnalysis(analysis);
        QVERIFY(!view.colorMap(ProjectionView::Product)->visible());
        QVERIFY(view.title().contains(QStringLiteral("not drawn")));
        QCOMPARE(view.colorMap(ProjectionView::Query)->data()->valueSize(), 2048);
    }
};

QTEST_MAIN(TestProjectionView)
#include "test_projection_view.moc"
