#pragma once
// The checks the export functions share (Export.cpp, ExportViews.cpp): each sets *error to one
// sentence and returns false when the export cannot go ahead. Internal to the export module.

#include <QString>
#include <memory>

#include "Analysis.h"

class QCustomPlot;

namespace headscope::ui::exporting {

void fail(QString* error, const QString& message);
// A non-owning shared_ptr: the views built for an export live shorter than the caller's Analysis.
std::shared_ptr<const Analysis> borrow(const Analysis& analysis);
// The first text element of the plot's layout (the views put their title there).
QString plotTitle(QCustomPlot* plot);
bool checkTarget(const QString& path, QString* error);
bool checkAnalysis(const Analysis& analysis, QString* error);
bool checkHead(const Analysis& analysis, int head, QString* error);

}  // namespace headscope::ui::exporting
