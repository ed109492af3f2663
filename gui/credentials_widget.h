// Password (hidden), optional confirmation, PIM and keyfiles (files and folders, order irrelevant): the credential
// block shared by the mount, create, change and re-encrypt dialogs.
#pragma once
#include <QWidget>
#include <optional>

#include "core/format/open.h"

class QLineEdit;
class QSpinBox;
class QListWidget;
class QLabel;
class QCheckBox;

namespace warpvol::gui {

class CredentialsWidget : public QWidget {
  Q_OBJECT
 public:
  // confirm: a second password field that must match (creation, new credentials). strength: show a hint.
  explicit CredentialsWidget(bool confirm, bool strength, QWidget* parent = nullptr);
  // Empty string when valid, else the first problem, in words.
  QString validate() const;
  Credentials credentials() const;  // password bytes are UTF-8
  void set_password(const QString& pw, const QString& confirm = {});
  void add_keyfile(const QString& path);
  QStringList keyfiles() const;
  void set_pim(int pim);
  int pim() const;
  QLineEdit* password_edit() const { return password_; }
  QLineEdit* confirm_edit() const { return confirm_; }
  // A hint from the password alone: "weak", "fair", "strong" (length and character classes).
  static QString strength_hint(const QString& pw);

 signals:
  void changed();

 private:
  void add_files();
  void add_folder();
  QLineEdit* password_ = nullptr;
  QLineEdit* confirm_ = nullptr;
  QLabel* strength_ = nullptr;
  QSpinBox* pim_ = nullptr;
  QListWidget* keyfiles_ = nullptr;
  QCheckBox* show_ = nullptr;
};

}  // namespace warpvol::gui
