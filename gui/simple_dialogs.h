// Smaller dialogs: Properties (everything `warpvol info` shows), Change credentials, Header backup/restore.
#pragma once
#include <QDialog>
#include <optional>

#include "core/create/change.h"

class QTableWidget;
class QComboBox;
class QLineEdit;
class QLabel;
class QRadioButton;
class QCheckBox;

namespace warpvol::gui {

class CredentialsWidget;

class PropertiesDialog : public QDialog {
  Q_OBJECT
 public:
  PropertiesDialog(const QString& volume, const std::vector<std::pair<QString, QString>>& props,
                   QWidget* parent = nullptr);
  QTableWidget* table() const { return table_; }

 private:
  QTableWidget* table_;
};

// Asks for a volume's credentials only (Properties, backup).
class CredentialsDialog : public QDialog {
  Q_OBJECT
 public:
  CredentialsDialog(const QString& title, QWidget* parent = nullptr);
  CredentialsWidget* credentials() const { return creds_; }
  QString validate() const;
  void accept() override;

 private:
  CredentialsWidget* creds_;
  QLabel* error_;
};

class ChangeDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ChangeDialog(const QString& volume, QWidget* parent = nullptr);
  QString validate() const;
  ChangeOptions options() const;
  CredentialsWidget* current() const { return old_; }
  CredentialsWidget* replacement() const { return new_; }
  void accept() override;

 private:
  CredentialsWidget* old_;
  CredentialsWidget* new_;
  QComboBox* prf_;
  QLabel* error_;
};

class HeaderBackupDialog : public QDialog {
  Q_OBJECT
 public:
  explicit HeaderBackupDialog(const QString& volume, QWidget* parent = nullptr);
  bool restore() const;
  bool from_embedded() const;
  QString file() const;
  OpenOptions open_options() const;
  // Backing up a volume that contains a hidden volume: the hidden volume's credentials, so both headers go into
  // the backup (VeraCrypt asks the same); nullopt when the box is off.
  std::optional<OpenOptions> hidden_options() const;
  QString validate() const;
  void accept() override;
  QCheckBox* hidden_box = nullptr;
  CredentialsWidget* hidden_credentials = nullptr;
  QRadioButton* backup_radio = nullptr;
  QRadioButton* restore_file_radio = nullptr;
  QRadioButton* restore_embedded_radio = nullptr;
  QLineEdit* file_edit = nullptr;

 private:
  CredentialsWidget* creds_;
  QLabel* error_;
};

}  // namespace warpvol::gui
