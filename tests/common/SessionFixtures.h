#pragma once
// Fixtures of the document tests (test_document without a window, test_mainwindow and test_undo
// with one): a configuration to edit, one that exercises every field a session file must carry
// exactly, and a damaged session file to open.

#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include "Config.h"

namespace headscope::test {

// The default configuration with `heads` heads (an edit to undo, a second document).
inline Config withHeads(int heads) {
    Config config;
    config.heads = heads;
    return config;
}

// A seed past 32 bits, a causal mask, a temperature and a text of its own: a round trip through
// a session file must keep each of them.
inline Config roundTripConfig() {
    Config config;
    config.heads = 4;
    config.seed = 12345678901234ULL;
    config.mask = MaskKind::Causal;
    config.temperature = 0.7;
    config.text = "Where did the dog bury its bone ?";
    return config;
}

// dir/broken.headscope.json holding bytes (not a valid session); its path, or "" if it cannot be written.
inline QString writeBrokenSession(const QTemporaryDir& dir, const QByteArray& bytes) {
    const QString path = dir.filePath(QStringLiteral("broken.headscope.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size()) return {};
    return path;
}

}  // namespace headscope::test
