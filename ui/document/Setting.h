#pragma once
// A typed settings key with its default, declared beside the code that uses it
// (after Tiled's SessionOption<T>):
//
//   static const Setting<double> kFontScale{"view/font_scale", 1.0};
//   double scale = kFontScale.get();   // default when absent or unreadable
//   kFontScale.set(1.2);
//
// Values live in QSettings (organisation and application names of the QCoreApplication).
// A stored value that cannot be converted to T reads as the default.

#include <QSettings>
#include <QString>
#include <QVariant>

namespace headscope::ui {

template <typename T>
class Setting {
public:
    Setting(const char* key, T default_value)
        : key_(QString::fromLatin1(key)), default_(std::move(default_value)) {}

    T get() const {
        QVariant value = QSettings().value(key_);
        if (!value.isValid() || !value.convert(QMetaType::fromType<T>())) return default_;
        return value.value<T>();
    }
    void set(const T& value) const { QSettings().setValue(key_, QVariant::fromValue(value)); }
    void reset() const { QSettings().remove(key_); }

    const QString& key() const { return key_; }
    const T& defaultValue() const { return default_; }

private:
    QString key_;
    T default_;
};

}  // namespace headscope::ui
