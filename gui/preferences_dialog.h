// Preferences dialog (VeraCrypt's Settings > Preferences): default engine, mount defaults (read-only, where mount
// points go), history, auto-dismount rules, tray notifications, and the creation wizard's default filesystem and
// encryption chain. Edits a Preferences value; the caller saves it.
#pragma once
#include <QDialog>

#include "gui/preferences.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;
class QLabel;

namespace warpvol::gui {

class PreferencesDialog : public QDialog {
  Q_OBJECT
 public:
  explicit PreferencesDialog(const Preferences& p, QWidget* parent = nullptr);
  Preferences preferences() const;
  QString validate() const;  // empty when the input can be saved
  void accept() override;    // refuses (and says why) while validate() fails

  // Widgets, for tests.
  QComboBox* engine_combo = nullptr;
  QCheckBox* read_only_box = nullptr;
  QLineEdit* mount_base_edit = nullptr;
  QCheckBox* history_box = nullptr;
  QCheckBox* inactivity_box = nullptr;
  QSpinBox* inactivity_minutes = nullptr;
  QCheckBox* screen_lock_box = nullptr;
  QCheckBox* suspend_box = nullptr;
  QCheckBox* quit_box = nullptr;
  QCheckBox* force_box = nullptr;
  QCheckBox* notifications_box = nullptr;
  QComboBox* fs_combo = nullptr;
  QComboBox* chain_combo = nullptr;

 private:
  QLabel* error_;
};

}  // namespace warpvol::gui
