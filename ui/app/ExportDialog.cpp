#include "ExportDialog.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "Setting.h"
#include "ViewRegistry.h"

namespace headscope::ui {

namespace {

const Setting<int> kWhat{"export/what", int(ExportRequest::What::AllHeads)};
const Setting<int> kView{"export/view", int(ViewKind::SpectrumQK)};
const Setting<int> kFormat{"export/format", int(ImageFormat::Png)};
const Setting<double> kScale{"export/png_scale", 2.0};
const Setting<QString> kPath{"export/last_path", QString()};

}  // namespace

ExportDialog::ExportDialog(int heads, int head, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Export"));
    setObjectName(QStringLiteral("export_dialog"));

    what_ = new QButtonGroup(this);
    auto* current = new QRadioButton(tr("&Current tab as on screen"));
    auto* one = new QRadioButton(tr("&One head:"));
    auto* all = new QRadioButton(tr("&All heads as a grid"));
    current->setToolTip(tr("Exactly what the head grid shows now, at its current size."));
    one->setToolTip(tr("One head's heatmap, large, with its token labels and colour scale."));
    all->setToolTip(tr("Every head's heatmap in one picture, laid out for a page or a slide."));
    what_->addButton(current, int(ExportRequest::What::CurrentView));
    what_->addButton(one, int(ExportRequest::What::OneHead));
    what_->addButton(all, int(ExportRequest::What::AllHeads));
    auto* other = new QRadioButton(tr("A&nother view:"));
    other->setToolTip(tr("Spectra, rank table, projections, the selected head's circuits or the costs, "
                         "laid out for a page or a slide."));
    what_->addButton(other, int(ExportRequest::What::View));
    view_ = new QComboBox;
    view_->setObjectName(QStringLiteral("export_view"));
    for (ViewKind kind : exportedViews()) view_->addItem(viewTitle(kind), int(kind));
    view_->setCurrentIndex(std::max(0, view_->findData(kView.get())));
    auto* other_row = new QHBoxLayout;
    other_row->addWidget(other);
    other_row->addWidget(view_, 1);
    head_ = new QSpinBox;
    head_->setObjectName(QStringLiteral("export_head"));
    head_->setRange(0, std::max(0, heads - 1));
    head_->setValue(std::clamp(head, 0, std::max(0, heads - 1)));
    head_->setPrefix(tr("head "));
    head_->setToolTip(tr("Which head to export, alone or as circuits (heads are numbered from 0)."));

    auto* one_row = new QHBoxLayout;
    one_row->addWidget(one);
    one_row->addWidget(head_);
    one_row->addStretch(1);

    format_ = new QComboBox;
    format_->setObjectName(QStringLiteral("export_format"));
    format_->addItem(tr("PNG picture"), int(ImageFormat::Png));
    format_->addItem(tr("SVG drawing (scales without blur)"), int(ImageFormat::Svg));
    format_->addItem(tr("PDF document"), int(ImageFormat::Pdf));
    format_->setToolTip(tr("PNG for slides and the web; SVG and PDF stay sharp at any size."));
    scale_ = new QComboBox;
    scale_->setObjectName(QStringLiteral("export_scale"));
    for (int s : {1, 2, 4}) scale_->addItem(QStringLiteral("%1\u00D7").arg(s), double(s));
    scale_->setToolTip(tr("Pixels per screen point in the PNG: 2\u00D7 or 4\u00D7 for projectors and print."));

    path_ = new QLineEdit;
    path_->setObjectName(QStringLiteral("export_path"));
    path_->setToolTip(tr("The file to write."));
    auto* browse = new QPushButton(tr("&Browse\u2026"));
    auto* path_row = new QHBoxLayout;
    path_row->addWidget(path_, 1);
    path_row->addWidget(browse);

    auto* form = new QFormLayout;
    auto* format_label = new QLabel(tr("&Format"));
    format_label->setBuddy(format_);
    auto* scale_label = new QLabel(tr("PNG &scale"));
    scale_label->setBuddy(scale_);
    auto* path_label = new QLabel(tr("F&ile"));
    path_label->setBuddy(path_);
    form->addRow(format_label, format_);
    form->addRow(scale_label, scale_);
    form->addRow(path_label, path_row);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    ok_ = buttons->button(QDialogButtonBox::Ok);
    ok_->setText(tr("&Export"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(current);
    layout->addLayout(one_row);
    layout->addWidget(all);
    layout->addLayout(other_row);
    layout->addSpacing(8);
    layout->addLayout(form);
    layout->addWidget(buttons);

    // Restore the previous choices.
    if (QAbstractButton* remembered = what_->button(kWhat.get())) remembered->setChecked(true);
    else all->setChecked(true);
    format_->setCurrentIndex(std::max(0, format_->findData(kFormat.get())));
    scale_->setCurrentIndex(std::max(0, scale_->findData(kScale.get())));
    QString path = kPath.get();
    if (path.isEmpty()) path = QDir::home().filePath(QStringLiteral("headscope.png"));
    path_->setText(path);
    formatChanged();

    connect(format_, &QComboBox::currentIndexChanged, this, &ExportDialog::formatChanged);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(path_, &QLineEdit::textChanged, this, &ExportDialog::updateOk);
    connect(buttons, &QDialogButtonBox::accepted, this, &ExportDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ExportDialog::reject);
    connect(other, &QRadioButton::toggled, view_, &QComboBox::setEnabled);
    view_->setEnabled(other->isChecked());
    updateOk();
}

ExportRequest ExportDialog::request() const {
    ExportRequest r;
    r.what = ExportRequest::What(what_->checkedId());
    r.head = head_->value();
    r.view = ViewKind(view_->currentData().toInt());
    r.format = ImageFormat(format_->currentData().toInt());
    r.scale = scale_->currentData().toDouble();
    r.path = path_->text().trimmed();
    return r;
}

void ExportDialog::setPath(const QString& path) { path_->setText(path); }

void ExportDialog::accept() {
    const ExportRequest r = request();
    kWhat.set(int(r.what));
    kView.set(int(r.view));
    kFormat.set(int(r.format));
    kScale.set(r.scale);
    kPath.set(r.path);
    QDialog::accept();
}

void ExportDialog::formatChanged() {
    const auto format = ImageFormat(format_->currentData().toInt());
    scale_->setEnabled(format == ImageFormat::Png);
    // Keep the file name's suffix in step with the format.
    QString path = path_->text().trimmed();
    if (path.isEmpty()) return;
    const QFileInfo info(path);
    const QString current = info.suffix().toLower();
    const QString wanted = suffix(format);
    if (current == wanted) return;
    if (imageFormatFromSuffix(current))
        path.chop(current.size());
    else
        path += QLatin1Char('.');
    path_->setText(path + wanted);
}

void ExportDialog::browse() {
    const auto format = ImageFormat(format_->currentData().toInt());
    const QString filter = format == ImageFormat::Svg ? tr("SVG drawings (*.svg)")
                         : format == ImageFormat::Pdf ? tr("PDF documents (*.pdf)")
                                                      : tr("PNG pictures (*.png)");
    const QString path = QFileDialog::getSaveFileName(this, tr("Export to"), path_->text(), filter);
    if (!path.isEmpty()) path_->setText(path);
    formatChanged();
}

void ExportDialog::updateOk() { ok_->setEnabled(!path_->text().trimmed().isEmpty()); }

}  // namespace headscope::ui
