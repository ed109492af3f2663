// Mount dialog: credentials, PRF hint, read-only, hidden-volume protection with its own credentials, mount point
// or "do not mount" (plaintext device only), filesystem options.
#pragma once
#include <QDialog>

#include "gui/operations.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QLabel;
class QGroupBox;

namespace warpvol::gui {

class CredentialsWidget;

class MountDialog : public QDialog {
  Q_OBJECT
 public:
  explicit MountDialog(const QString& volume, QWidget* parent = nullptr);
  QString validate() const;  // empty when the input can be used
  MountParams params() const;
  // Starting values from the preferences or a favourite (the user can still change them).
  void prefill(bool read_only, const QString& mount_point);
  CredentialsWidget* credentials() const { return creds_; }
  CredentialsWidget* protection_credentials() const { return protect_creds_; }
  QCheckBox* protect_box() const { return protect_; }
  QCheckBox* no_mount_box() const { return no_mount_; }
  QLabel* error_label() const { return error_; }
  void accept() override;  // refuses (and says why) while validate() fails

 private:
  QString volume_;
  CredentialsWidget* creds_;
  CredentialsWidget* protect_creds_;
  QComboBox* prf_;
  QCheckBox* read_only_;
  QGroupBox* protect_group_;
  QCheckBox* protect_;
  QCheckBox* no_mount_;
  QLineEdit* mount_point_;
  QLineEdit* fs_options_;
  QLabel* error_;
};

}  // namespace warpvol::gui
