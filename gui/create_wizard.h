// Volume creation wizard, VeraCrypt's order: type -> location -> encryption and hash (with a Benchmark button) ->
// size (free-space check) -> password/keyfiles/PIM (strength hint, confirmation) -> filesystem -> progress (phase,
// speed, ETA, Cancel removes the partial file) -> done.
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

enum WizardPage { PageType, PageLocation, PageEncryption, PageSize, PagePassword, PageFilesystem, PageProgress, PageDone };

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
