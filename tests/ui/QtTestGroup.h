#pragma once
// Several QtTest files in one program (issue 35 item 5): a group's files compile as one translation
// unit and link once instead of once each. A file ends with HEADSCOPE_QTEST_MAIN(TestClass) where a
// lone test would end with QTEST_MAIN (likewise _GUILESS_ and _APPLESS_); the program's first
// argument names the file whose tests run, the rest are QtTest's own:
//   ui_window_tests test_undo [-v2] [testFunction ...]
// Each ctest (ui.test_undo) runs one file's tests in a process of its own, as before.

#include <QtTest/QtTest>

namespace headscope::test {

using QtTestRun = int (*)(int argc, char** argv);
// Registers `run` under the stem of `source_file` (its __FILE__); a name twice stops the program.
bool registerQtTest(const char* source_file, QtTestRun run);

// How long a QTRY waits for work done off the GUI thread (an analysis, a result, a load, training):
// QtTest's default 5 s is short for a slow machine under AddressSanitizer with four tests at a time
// (a 4096-wide analysis took 83 s there, 0.7 s in the normal build). A QTRY returns once its
// condition holds, so a passing test waits no longer for it.
inline constexpr int kBackgroundWaitMs = 60000;

}  // namespace headscope::test

// QTEST_MAIN's body (qtest.h, Qt 6.4) as a function the group's main() calls by name.
#define HEADSCOPE_QTEST_MAIN_IMPL(TestObject, ...)                                                  \
    namespace {                                                                                     \
    int runQtTest##TestObject(int argc, char** argv) {                                              \
        QTest::Internal::callInitMain<TestObject>();                                                \
        __VA_ARGS__                                                                                 \
        TestObject tc;                                                                              \
        QTEST_SET_MAIN_SOURCE_PATH                                                                  \
        return QTest::qExec(&tc, argc, argv);                                                       \
    }                                                                                               \
    [[maybe_unused]] const bool registered##TestObject =                                            \
        headscope::test::registerQtTest(__FILE__, runQtTest##TestObject);                           \
    }

// A QApplication (widgets), a QCoreApplication, or none, as QTEST_MAIN, _GUILESS_ and _APPLESS_ make.
#define HEADSCOPE_QTEST_MAIN(TestObject) HEADSCOPE_QTEST_MAIN_IMPL(TestObject, QTEST_MAIN_SETUP())
#define HEADSCOPE_QTEST_GUILESS_MAIN(TestObject) \
    HEADSCOPE_QTEST_MAIN_IMPL(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
#define HEADSCOPE_QTEST_APPLESS_MAIN(TestObject) HEADSCOPE_QTEST_MAIN_IMPL(TestObject)
