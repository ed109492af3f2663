#include "gui/simple_dialogs.h"

#include <QComboBox>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/kdf/prf.h"
#include "gui/credentials_widget.h"

namespace warpvol::gui {

namespace {

QLabel* error_label(QWidget* parent) {
  auto* l = new QLabel(parent);
  l->setObjectName("error");
  l->setStyleSheet("color: #b00020");
  l->setWordWrap(true);
  return l;
}

QDialogButtonBox* ok_cancel(QDialog* d, const QString& ok) {
  auto* b = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, d);
  b->button(QDialogButtonBox::Ok)->setText(ok);
  QObject::connect(b, &QDialogButtonBox::accepted, d, &QDialog::accept);
  QObject::connect(b, &QDialogButtonBox::rejected, d, &QDialog::reject);
  return b;
}

}  // namespace

PropertiesDialog::PropertiesDialog(const QString& volume, const std::vector<std::pair<QString, QString>>& props,
                                   QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Volume Properties: %1").arg(volume));
  resize(640, 480);
  auto* l = new QVBoxLayout(this);
  table_ = new QTableWidget(int(props.size()), 2, this);
  table_->setHorizontalHeaderLabels({tr("Property"), tr("Value")});
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  for (size_t i = 0; i < props.size(); ++i) {
    table_->setItem(int(i), 0, new QTableWidgetItem(props[i].first));
    table_->setItem(int(i), 1, new QTableWidgetItem(props[i].second));
  }
  l->addWidget(table_);
  auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
  l->addWidget(close);
}

CredentialsDialog::CredentialsDialog(const QString& title, QWidget* parent) : QDialog(parent) {
  setWindowTitle(title);
  auto* l = new QVBoxLayout(this);
  creds_ = new CredentialsWidget(false, false, this);
  l->addWidget(creds_);
  error_ = error_label(this);
  l->addWidget(error_);
  l->addWidget(ok_cancel(this, tr("OK")));
}

QString CredentialsDialog::validate() const { return creds_->validate(); }

void CredentialsDialog::accept() {
  error_->setText(validate());
  if (error_->text().isEmpty()) QDialog::accept();
}

ChangeDialog::ChangeDialog(const QString& volume, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Change Volume Password or Keyfiles: %1").arg(volume));
  auto* l = new QVBoxLayout(this);
  auto* g1 = new QGroupBox(tr("Current"), this);
  auto* g1l = new QVBoxLayout(g1);
  old_ = new CredentialsWidget(false, false, g1);
  g1l->addWidget(old_);
  l->addWidget(g1);
  auto* g2 = new QGroupBox(tr("New"), this);
  auto* g2l = new QVBoxLayout(g2);
  new_ = new CredentialsWidget(true, true, g2);
  g2l->addWidget(new_);
  auto* f = new QFormLayout;
  prf_ = new QComboBox(g2);
  prf_->addItem(tr("Unchanged"), -1);
  for (const auto& p : all_prfs())
    if (p.veracrypt) prf_->addItem(QString::fromUtf8(p.name.data(), int(p.name.size())), int(p.id));
  f->addRow(tr("New PRF:"), prf_);
  g2l->addLayout(f);
  l->addWidget(g2);
  error_ = error_label(this);
  l->addWidget(error_);
  l->addWidget(ok_cancel(this, tr("Change")));
}

QString ChangeDialog::validate() const {
  if (QString e = old_->validate(); !e.isEmpty()) return tr("Current: %1").arg(e);
  if (QString e = new_->validate(); !e.isEmpty()) return tr("New: %1").arg(e);
  return {};
}

ChangeOptions ChangeDialog::options() const {
  ChangeOptions o;
  o.open.credentials = old_->credentials();
  o.new_credentials = new_->credentials();
  if (int id = prf_->currentData().toInt(); id >= 0) o.new_prf = static_cast<PrfId>(id);
  return o;
}

void ChangeDialog::accept() {
  error_->setText(validate());
  if (error_->text().isEmpty()) QDialog::accept();
}

HeaderBackupDialog::HeaderBackupDialog(const QString& volume, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Volume Header Backup / Restore: %1").arg(volume));
  auto* l = new QVBoxLayout(this);
  backup_radio = new QRadioButton(tr("Back up the volume headers to a file (128 KiB, VeraCrypt format)"), this);
  restore_file_radio = new QRadioButton(tr("Restore the volume header from a backup file"), this);
  restore_embedded_radio = new QRadioButton(tr("Restore the volume header from the backup embedded in the volume"), this);
  backup_radio->setChecked(true);
  l->addWidget(backup_radio);
  l->addWidget(restore_file_radio);
  l->addWidget(restore_embedded_radio);
  auto* row = new QHBoxLayout;
  file_edit = new QLineEdit(this);
  auto* browse = new QPushButton(tr("Select File..."), this);
  row->addWidget(new QLabel(tr("Backup file:"), this));
  row->addWidget(file_edit);
  row->addWidget(browse);
  l->addLayout(row);
  connect(browse, &QPushButton::clicked, this, [this] {
    QString f = restore() ? QFileDialog::getOpenFileName(this, tr("Header backup"))
                          : QFileDialog::getSaveFileName(this, tr("Header backup"));
    if (!f.isEmpty()) file_edit->setText(f);
  });
  connect(restore_embedded_radio, &QRadioButton::toggled, file_edit, [this](bool on) { file_edit->setEnabled(!on); });
  creds_ = new CredentialsWidget(false, false, this);
  l->addWidget(creds_);
  hidden_box = new QCheckBox(tr("The volume contains a hidden volume: back up its header too"), this);
  hidden_box->setObjectName("backup_hidden");
  hidden_box->setToolTip(tr("Without the hidden volume's credentials its slot in the backup holds random data, and "
                            "restoring the backup would leave the hidden volume's header as it is on the volume."));
  l->addWidget(hidden_box);
  hidden_credentials = new CredentialsWidget(false, false, this);
  hidden_credentials->setEnabled(false);
  l->addWidget(hidden_credentials);
  connect(hidden_box, &QCheckBox::toggled, hidden_credentials, &QWidget::setEnabled);
  connect(backup_radio, &QRadioButton::toggled, this, [this](bool on) {
    hidden_box->setEnabled(on);
    hidden_credentials->setEnabled(on && hidden_box->isChecked());
  });
  error_ = error_label(this);
  l->addWidget(error_);
  l->addWidget(ok_cancel(this, tr("OK")));
}

std::optional<OpenOptions> HeaderBackupDialog::hidden_options() const {
  if (restore() || !hidden_box->isChecked()) return std::nullopt;
  OpenOptions o;
  o.credentials = hidden_credentials->credentials();
  o.slot = SlotKind::Hidden;
  return o;
}

bool HeaderBackupDialog::restore() const { return !backup_radio->isChecked(); }
bool HeaderBackupDialog::from_embedded() const { return restore_embedded_radio->isChecked(); }
QString HeaderBackupDialog::file() const { return file_edit->text(); }

OpenOptions HeaderBackupDialog::open_options() const {
  OpenOptions o;
  o.credentials = creds_->credentials();
  return o;
}

QString HeaderBackupDialog::validate() const {
  if (QString e = creds_->validate(); !e.isEmpty()) return e;
  if (hidden_options())
    if (QString e = hidden_credentials->validate(); !e.isEmpty()) return tr("Hidden volume: %1").arg(e);
  if (!from_embedded() && file().isEmpty()) return tr("Choose the backup file.");
  if (restore_file_radio->isChecked() && !QFileInfo(file()).isFile()) return tr("The backup file does not exist.");
  if (backup_radio->isChecked() && QFileInfo::exists(file())) return tr("%1 exists already.").arg(file());
  return {};
}

void HeaderBackupDialog::accept() {
  error_->setText(validate());
  if (error_->text().isEmpty()) QDialog::accept();
}

}  // namespace warpvol::gui
