#include "HeadNames.h"

namespace headscope::ui {

QString kvSuffix(int head, int heads, int kv_heads) {
    if (kv_heads <= 0 || kv_heads >= heads || heads % kv_heads != 0) return {};
    return QStringLiteral(" · kv %1").arg(head / (heads / kv_heads));
}

QString headTitle(int head, int heads, int kv_heads) {
    return QStringLiteral("head %1").arg(head) + kvSuffix(head, heads, kv_heads);
}

QString gridHeadTitle(int head, int heads, int kv_heads, bool short_title) {
    return short_title ? QStringLiteral("h%1").arg(head) : headTitle(head, heads, kv_heads);
}

}  // namespace headscope::ui
