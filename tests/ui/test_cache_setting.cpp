// The window opens a model with the conversion-cache size of its settings (key
// model/cache_layers, as headscope-cli's --cache-layers): 0 and 5 reach the BF16 model's cache,
// no value gives the default, a negative one is refused in one line naming the setting.
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>
#include "QtTestGroup.h"

#include "Session.h"
#include "Setting.h"

using namespace headscope;
using namespace headscope::ui;

class TestCacheSetting : public QObject {
    Q_OBJECT

private:
    const QString bf16_ = QStringLiteral(HEADSCOPE_TEST_DATA_DIR "/rotary/qwen2_tied_bf16");
    const Setting<int> setting_{"model/cache_layers", -100};  // the same key Session reads

    // The opened model's cache capacity, or -1 with the failure's message when it failed.
    int openedCapacity(QString* message = nullptr) {
        Session session;
        QSignalSpy opened(&session, &Session::sourceChanged);
        QSignalSpy failed(&session, &Session::failed);
        session.openModel(bf16_);
        if (!QTest::qWaitFor([&] { return opened.count() + failed.count() > 0; }, 60000)) return -2;
        if (!failed.isEmpty()) {
            if (message) *message = failed.first().at(0).toString();
            return -1;
        }
        const model::ModelPtr& m = session.source().model;
        return m && m->conversion_cache ? m->conversion_cache->capacity() : -3;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadScopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_cache_setting"));
    }
    void cleanup() { setting_.reset(); }

    void theSettingReachesTheModel() {
        setting_.reset();
        QCOMPARE(openedCapacity(), model::ConversionCache::kDefaultLayers);
        setting_.set(0);
        QCOMPARE(openedCapacity(), 0);
        setting_.set(5);
        QCOMPARE(openedCapacity(), 5);
    }

    void aNegativeSettingIsOneMessage() {
        setting_.set(-3);
        QString message;
        QCOMPARE(openedCapacity(&message), -1);
        QVERIFY2(message.contains(QStringLiteral("model/cache_layers")) && message.contains(QStringLiteral("not -3")),
                 qPrintable(message));
        QVERIFY2(!message.contains('\n'), qPrintable(message));
    }
};

HEADSCOPE_QTEST_MAIN(TestCacheSetting)
#include "test_cache_setting.moc"
