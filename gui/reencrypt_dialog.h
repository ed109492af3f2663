// Re-encrypt dialog: one or many containers, their credentials, a new chain and/or PRF, progress per container,
// and the offer to resume an interrupted job when a container has a re-encryption journal.
#pragma once
#include <QDialog>
#include <QFutureWatcher>
#include <atomic>
#include <functional>
#include <optional>

#include "core/format/open.h"
#include "core/util/progress.h"

class QListWidget;
class QComboBox;
class QTableWidget;
class QLabel;
class QPushButton;
class QCheckBox;

namespace warpvol::gui {

class CredentialsWidget;

struct ReencryptJob {
  std::vector<std::string> volumes;
  Credentials credentials;                  // the same credentials for every container
  std::optional<ChainId> new_chain;
  std::optional<PrfId> new_prf;
  bool resume = false;                      // continue interrupted jobs
  bool no_hidden_volume = false;            // the user states the containers hide no hidden volume
  std::optional<Credentials> hidden;        // or: the hidden volume's credentials (both are re-encrypted)
};

// What the dialog calls; the default is core/reencrypt (reencrypt_backend.cpp), tests inject their own.
struct ReencryptBackend {
  std::function<bool(const std::string& volume)> has_journal;
  // Runs the job; per-volume progress through `progress` (ProgressUpdate::item = volume); throws on failure.
  std::function<void(const ReencryptJob&, const ProgressFn&, const CancelToken&)> run;
};
ReencryptBackend default_reencrypt_backend();

class ReencryptDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ReencryptDialog(QWidget* parent = nullptr, ReencryptBackend backend = default_reencrypt_backend());
  ~ReencryptDialog() override;
  void add_volume(const QString& path);
  QStringList volumes() const;
  QString validate() const;
  ReencryptJob job() const;
  bool resume_offered() const;  // a journal was found for a listed container
  void start();                 // runs the job on a worker thread
  QCheckBox* resume_box() const { return resume_; }
  QCheckBox* no_hidden_box() const { return no_hidden_; }
  CredentialsWidget* credentials() const { return creds_; }
  QTableWidget* progress_table() const { return table_; }
  QLabel* status_label() const { return status_; }

 signals:
  void job_finished(const QString& error);

 private:
  void update_resume_offer();
  ReencryptBackend backend_;
  QListWidget* list_;
  CredentialsWidget* creds_;
  QComboBox* chain_;
  QComboBox* prf_;
  QCheckBox* resume_;
  QCheckBox* no_hidden_;
  QCheckBox* with_hidden_;
  CredentialsWidget* hidden_creds_;
  QTableWidget* table_;
  QLabel* status_;
  QPushButton* start_;
  QFutureWatcher<QString>* watcher_;
  std::atomic<bool> cancel_{false};
  bool resume_offered_ = false;
};

}  // namespace warpvol::gui
