// Volume creation wizard, VeraCrypt's order: type -> location -> (hidden: the outer volume's credentials, so its
// filesystem is analysed; "trust the size" is an explicit choice) -> encryption and hash (with a Benchmark button)
// -> size (free-space check) -> password/keyfiles/PIM (strength hint, confirmation) -> filesystem (FAT by default,
// as VeraCrypt on Linux) -> summary (nothing is written before it) -> progress (phase, speed, ETA, Cancel removes
// the partial file) -> done.
#pragma once
#include <QFutureWatcher>
#include <QStringList>
#include <QWizard>
#include <atomic>
#include <functional>
#include <memory>

#include "core/create/create.h"

class QRadioButton;
class QLineEdit;
class QComboBox;
class QSpinBox;
class QLabel;
class QProgressBar;
class QCheckBox;
class QPushButton;

namespace warpvol::gui {

class CredentialsWidget;

// The filesystems the wizard offers ("none" and mkfs types), in its list's order.
QStringList wizard_filesystems();

// Page ids; the order of the flow is nextId()'s, not the ids'.
enum WizardPage {
  PageType,
  PageLocation,
  PageEncryption,
  PageSize,
  PagePassword,
  PageFilesystem,
  PageProgress,
  PageDone,
  PageOuter,
  PageSummary
};

class CreateWizard : public QWizard {
  Q_OBJECT
 public:
  explicit CreateWizard(QWidget* parent = nullptr);
  // The creation request assembled from the pages (engine and progress are set by the progress page).
  CreateOptions options() const;
  QString filesystem() const;  // "none" or a mkfs type
  // Errors shown on the current page when Next is refused.
  QString page_error() const;
  // Injected by the main window (and tests): opens the benchmark dialog.
  std::function<void()> on_benchmark;
  // Injected by tests: replaces the real creation (runs on the worker thread).
  std::function<void(const CreateOptions&, const QString& fs)> run_create;

  // Page widgets, for tests.
  QRadioButton* hidden_radio = nullptr;
  QLineEdit* path_edit = nullptr;
  QLineEdit* outer_edit = nullptr;
  QComboBox* chain_combo = nullptr;
  QComboBox* prf_combo = nullptr;
  QSpinBox* size_spin = nullptr;
  QComboBox* size_unit = nullptr;
  QLabel* free_label = nullptr;
  CredentialsWidget* creds = nullptr;
  QComboBox* fs_combo = nullptr;
  QCheckBox* quick_box = nullptr;
  QProgressBar* progress_bar = nullptr;
  QLabel* progress_label = nullptr;
  QPushButton* cancel_button = nullptr;
  QLabel* done_label = nullptr;
  QLabel* error_label = nullptr;
  CredentialsWidget* outer_creds = nullptr;  // PageOuter
  QCheckBox* trust_size_box = nullptr;       // PageOuter: skip the outer filesystem check
  QLabel* summary_label = nullptr;           // PageSummary
  // The summary page's text (what will be written).
  QString summary() const;

  bool validateCurrentPage() override;
  int nextId() const override;
  uint64_t size_bytes() const;

 signals:
  void creation_finished(bool ok, const QString& message);

 private:
  void start_creation();
  std::atomic<bool> cancel_{false};
  QFutureWatcher<QString>* watcher_ = nullptr;
  bool created_ = false;
};

}  // namespace warpvol::gui
