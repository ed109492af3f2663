#include "gui/credentials_widget.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace warpvol::gui {

CredentialsWidget::CredentialsWidget(bool confirm, bool strength, QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  password_ = new QLineEdit(this);
  password_->setEchoMode(QLineEdit::Password);
  password_->setObjectName("password");
  form->addRow(tr("Password:"), password_);
  if (confirm) {
    confirm_ = new QLineEdit(this);
    confirm_->setEchoMode(QLineEdit::Password);
    confirm_->setObjectName("confirm");
    form->addRow(tr("Confirm:"), confirm_);
    connect(confirm_, &QLineEdit::textChanged, this, &CredentialsWidget::changed);
  }
  if (strength) {
    strength_ = new QLabel(this);
    strength_->setObjectName("strength");
    form->addRow(tr("Strength:"), strength_);
  }
  show_ = new QCheckBox(tr("Display password"), this);
  form->addRow(QString(), show_);
  connect(show_, &QCheckBox::toggled, this, [this](bool on) {
    password_->setEchoMode(on ? QLineEdit::Normal : QLineEdit::Password);
    if (confirm_) confirm_->setEchoMode(on ? QLineEdit::Normal : QLineEdit::Password);
  });
  pim_ = new QSpinBox(this);
  pim_->setObjectName("pim");
  pim_->setRange(0, 2147468);
  pim_->setSpecialValueText(tr("default"));
  form->addRow(tr("PIM:"), pim_);

  auto* kf = new QWidget(this);
  auto* kfl = new QVBoxLayout(kf);
  kfl->setContentsMargins(0, 0, 0, 0);
  keyfiles_ = new QListWidget(kf);
  keyfiles_->setObjectName("keyfiles");
  keyfiles_->setMaximumHeight(80);
  kfl->addWidget(keyfiles_);
  auto* buttons = new QHBoxLayout;
  auto* add_files = new QPushButton(tr("Add files..."), kf);
  auto* add_folder = new QPushButton(tr("Add folder..."), kf);
  auto* remove = new QPushButton(tr("Remove"), kf);
  buttons->addWidget(add_files);
  buttons->addWidget(add_folder);
  buttons->addWidget(remove);
  kfl->addLayout(buttons);
  form->addRow(tr("Keyfiles:"), kf);
  connect(add_files, &QPushButton::clicked, this, &CredentialsWidget::add_files);
  connect(add_folder, &QPushButton::clicked, this, &CredentialsWidget::add_folder);
  connect(remove, &QPushButton::clicked, this, [this] {
    qDeleteAll(keyfiles_->selectedItems());
    emit changed();
  });
  connect(password_, &QLineEdit::textChanged, this, [this](const QString& pw) {
    if (strength_) strength_->setText(strength_hint(pw));
    emit changed();
  });
}

void CredentialsWidget::add_files() {
  for (const QString& f : QFileDialog::getOpenFileNames(this, tr("Keyfiles"))) add_keyfile(f);
}

void CredentialsWidget::add_folder() {
  QString d = QFileDialog::getExistingDirectory(this, tr("Keyfile folder"));
  if (!d.isEmpty()) add_keyfile(d);
}

void CredentialsWidget::add_keyfile(const QString& path) {
  keyfiles_->addItem(path);
  emit changed();
}

QStringList CredentialsWidget::keyfiles() const {
  QStringList out;
  for (int i = 0; i < keyfiles_->count(); ++i) out << keyfiles_->item(i)->text();
  return out;
}

void CredentialsWidget::set_password(const QString& pw, const QString& confirm) {
  password_->setText(pw);
  if (confirm_) confirm_->setText(confirm.isNull() ? pw : confirm);
}

void CredentialsWidget::set_pim(int pim) { pim_->setValue(pim); }
int CredentialsWidget::pim() const { return pim_->value(); }

QString CredentialsWidget::validate() const {
  const QByteArray pw = password_->text().toUtf8();
  if (pw.isEmpty() && keyfiles().isEmpty()) return tr("Enter a password or add a keyfile.");
  if (pw.size() > 128) return tr("The password is longer than 128 bytes (UTF-8), VeraCrypt's limit.");
  if (confirm_ && password_->text() != confirm_->text()) return tr("The password and its confirmation differ.");
  for (const QString& k : keyfiles())
    if (!QFileInfo::exists(k)) return tr("Keyfile not found: %1").arg(k);
  return {};
}

Credentials CredentialsWidget::credentials() const {
  Credentials c;
  QByteArray pw = password_->text().toUtf8();
  c.password = LockedBytes(reinterpret_cast<const uint8_t*>(pw.constData()), size_t(pw.size()));
  pw.fill('\0');
  for (const QString& k : keyfiles()) c.keyfiles.push_back(k.toStdString());
  c.pim = pim_->value();
  return c;
}

QString CredentialsWidget::strength_hint(const QString& pw) {
  if (pw.isEmpty()) return {};
  int classes = 0;
  bool lower = false, upper = false, digit = false, other = false;
  for (QChar ch : pw) {
    if (ch.isLower()) lower = true;
    else if (ch.isUpper()) upper = true;
    else if (ch.isDigit()) digit = true;
    else other = true;
  }
  classes = int(lower) + int(upper) + int(digit) + int(other);
  if (pw.size() < 12 || classes < 2) return tr("weak: VeraCrypt recommends 20 characters or more");
  if (pw.size() < 20 || classes < 3) return tr("fair");
  return tr("strong");
}

}  // namespace warpvol::gui
