#pragma once
// How a head is named on screen, with its key/value head under grouped-query attention:
// "head 5 · kv 1" when several query heads share key/value head 1, "head 5" otherwise.

#include <QString>

namespace headscope::ui {

// kv_heads < heads: grouped-query attention (query head i reads key/value head i / (h / kv)).
QString headTitle(int head, int heads, int kv_heads);
// The heads grid's title of head h: "head 5 · kv 1" (GQA) or "head 5"; "h5" when short.
QString gridHeadTitle(int head, int heads, int kv_heads, bool short_title);
// " · kv 1" under grouped-query attention, "" otherwise.
QString kvSuffix(int head, int heads, int kv_heads);

}  // namespace headscope::ui
