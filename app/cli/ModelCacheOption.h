#pragma once
// --cache-layers N of `model` and `bench`: how many layers of an F16/BF16 model's weights stay
// converted to float (model/LinearWeight.h ConversionCache; default 2). 0 converts every layer
// each time it is used; a number at least the model's layers keeps them all. F32 models read
// their weights in place and ignore it. The window reads the same number from its settings
// (key model/cache_layers, README's command-line section).

#include <QCommandLineParser>

#include "cli/Arguments.h"
#include "model/LinearWeight.h"

namespace headscope::cli {

constexpr int kMaxCacheLayers = 100'000;

inline QCommandLineOption cacheLayersOption() {
    return {"cache-layers", "F16/BF16 models: layers kept converted to float (default " +
                                QString::number(model::ConversionCache::kDefaultLayers) +
                                "; 0 converts each layer when it is used, more keeps more in memory).", "N"};
}

inline int parseCacheLayers(const QCommandLineParser& parser) {
    return parser.isSet("cache-layers") ? parseInt("cache-layers", parser.value("cache-layers"), 0, kMaxCacheLayers)
                                        : model::ConversionCache::kDefaultLayers;
}

}  // namespace headscope::cli
