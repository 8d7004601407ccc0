#include "Resources.h"

#include <QtGlobal>

// Q_INIT_RESOURCE must be used outside any namespace.
static void initHeadscopeQrc() { Q_INIT_RESOURCE(headscope); }

namespace headscope::ui {

void initResources() {
    static const bool done = (initHeadscopeQrc(), true);
    (void)done;
}

}  // namespace headscope::ui
