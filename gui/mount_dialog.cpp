#include "gui/mount_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/kdf/prf.h"
#include "gui/credentials_widget.h"

namespace warpvol::gui {

MountDialog::MountDialog(const QString& volume, QWidget* parent) : QDialog(parent), volume_(volume) {
  setWindowTitle(tr("Mount %1").arg(volume));
  auto* layout = new QVBoxLayout(this);
  creds_ = new CredentialsWidget(false, false, this);
  layout->addWidget(creds_);

  auto* opts = new QFormLayout;
  prf_ = new QComboBox(this);
  prf_->addItem(tr("Autodetect"), -1);
  for (const auto& p : all_prfs()) prf_->addItem(QString::fromUtf8(p.name.data(), int(p.name.size())), int(p.id));
  opts->addRow(tr("PRF:"), prf_);
  read_only_ = new QCheckBox(tr("Mount read-only"), this);
  opts->addRow(QString(), read_only_);
  no_mount_ = new QCheckBox(tr("Do not mount a filesystem (plaintext device only)"), this);
  no_mount_->setObjectName("no_mount");
  opts->addRow(QString(), no_mount_);
  mount_point_ = new QLineEdit(this);
  mount_point_->setPlaceholderText(tr("default: a folder per slot"));
  opts->addRow(tr("Mount point:"), mount_point_);
  fs_options_ = new QLineEdit(this);
  fs_options_->setPlaceholderText(tr("e.g. noatime,nodev"));
  opts->addRow(tr("Filesystem options:"), fs_options_);
  layout->addLayout(opts);
  connect(no_mount_, &QCheckBox::toggled, this, [this](bool on) {
    mount_point_->setEnabled(!on);
    fs_options_->setEnabled(!on);
  });

  protect_group_ = new QGroupBox(tr("Hidden volume protection"), this);
  auto* pl = new QVBoxLayout(protect_group_);
  protect_ = new QCheckBox(tr("Protect the hidden volume (writes into it fail)"), protect_group_);
  protect_->setObjectName("protect_hidden");
  pl->addWidget(protect_);
  protect_creds_ = new CredentialsWidget(false, false, protect_group_);
  protect_creds_->setEnabled(false);
  pl->addWidget(protect_creds_);
  connect(protect_, &QCheckBox::toggled, protect_creds_, &QWidget::setEnabled);
  layout->addWidget(protect_group_);

  error_ = new QLabel(this);
  error_->setObjectName("error");
  error_->setStyleSheet("color: #b00020");
  layout->addWidget(error_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Mount"));
  connect(buttons, &QDialogButtonBox::accepted, this, &MountDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

QString MountDialog::validate() const {
  if (QString e = creds_->validate(); !e.isEmpty()) return e;
  if (protect_->isChecked()) {
    if (QString e = protect_creds_->validate(); !e.isEmpty()) return tr("Hidden volume protection: %1").arg(e);
    if (read_only_->isChecked()) return tr("A read-only mount cannot write into the hidden volume: protection is not needed.");
  }
  return {};
}

MountParams MountDialog::params() const {
  MountParams p;
  p.volume = volume_;
  p.open.credentials = creds_->credentials();
  if (int id = prf_->currentData().toInt(); id >= 0) p.open.prf = static_cast<PrfId>(id);
  if (protect_->isChecked()) p.protect_hidden = protect_creds_->credentials();
  p.read_only = read_only_->isChecked();
  p.no_filesystem = no_mount_->isChecked();
  p.mount_point = mount_point_->text();
  p.fs_options = fs_options_->text();
  return p;
}

void MountDialog::prefill(bool read_only, const QString& mount_point) {
  read_only_->setChecked(read_only);
  mount_point_->setText(mount_point);
}

void MountDialog::accept() {
  const QString e = validate();
  error_->setText(e);
  if (e.isEmpty()) QDialog::accept();
}

}  // namespace warpvol::gui
