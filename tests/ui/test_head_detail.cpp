// The large single-head view shows that head's numbers, every token label, and the head's
// W_QK rank and singular values beside it.
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>

#include "Analysis.h"
#include "HeadDetailView.h"

using namespace headscope;
using namespace headscope::ui;

class TestHeadDetail : public QObject {
    Q_OBJECT

private slots:
    void showsTheChosenHeadsNumbersAndRank() {
        Config config;
        config.heads = 4;
        config.mask = MaskKind::Causal;
        const auto a = std::make_shared<const Analysis>(analyze(config, false));
        HeadDetailView view;
        view.setAnalysis(a);
        view.setHead(2);
        QCOMPARE(view.head(), 2);
        QCPColorMapData* data = view.colorMap()->data();
        for (int r = 0; r < a->nQuery(); ++r) {
            for (int c = 0; c < a->nKeyValue(); ++c) {
                if (c > r)
                    QVERIFY(std::isnan(data->cell(c, r)));
                else
                    QCOMPARE(data->cell(c, r), static_cast<double>(a->results.heads[2].weights(r, c)));
            }
        }
        const QString info = view.infoText();
        QVERIFY2(info.contains(QString("%1 (≤ d_k = 16").arg(a->spectra[2].qk.rank)), qPrintable(info));
        QVERIFY(info.contains(QString::number(a->spectra[2].qk.singular_values(0), 'g', 3)));
        auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(view.colorMap()->keyAxis()->ticker());
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().size(), a->nKeyValue());

        ViewOptions options;
        options.show_logits = true;
        view.setOptions(options);
        QCOMPARE(view.colorMap()->data()->cell(0, 3), static_cast<double>(a->results.heads[2].logits(3, 0)));
        QCOMPARE(view.colorScale()->dataRange().lower, -view.colorScale()->dataRange().upper);
        view.replotNow();
    }

    // Lesson 5 step 4 says "Row 0, hatched": the large head hatches a row whose keys are all
    // masked (causal + padded key 0) as the grid does, and only that row (it drew none).
    void hatchesTheFullyMaskedRow() {
        Config config;
        config.heads = 4;
        config.mask = MaskKind::Causal;
        config.padded_keys = {0};
        const auto a = std::make_shared<const Analysis>(analyze(config, false));
        HeadDetailView view;
        view.resize(600, 500);
        view.setAnalysis(a);
        const auto hatched = [&view]() {
            QList<double> rows;
            for (int i = 0; i < view.plot()->itemCount(); ++i)
                if (auto* rect = qobject_cast<QCPItemRect*>(view.plot()->item(i)); rect && rect->brush().style() == Qt::BDiagPattern)
                    rows << (rect->topLeft->coords().y() + rect->bottomRight->coords().y()) / 2;
            return rows;
        };
        QCOMPARE(hatched(), QList<double>{0.0});
        view.setHead(3);  // redrawn, not added again
        QCOMPARE(hatched(), QList<double>{0.0});
        config.padded_keys.clear();
        view.setAnalysis(std::make_shared<const Analysis>(analyze(config, false)));
        QVERIFY(hatched().isEmpty());
    }

    void headIsClampedWhenHeadsDisappear() {
        Config config;
        config.heads = 8;
        HeadDetailView view;
        view.setAnalysis(std::make_shared<const Analysis>(analyze(config, false)));
        view.setHead(7);
        config.heads = 2;
        view.setAnalysis(std::make_shared<const Analysis>(analyze(config, false)));
        QCOMPARE(view.head(), 1);
        view.setAnalysis(nullptr);
        view.replotNow();
    }
};

HEADSCOPE_QTEST_MAIN(TestHeadDetail)
#include "test_head_detail.moc"
