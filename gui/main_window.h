// The main window: slot table, container path with history, and the VeraCrypt-style buttons (Select File, Mount,
// Dismount, Dismount All, Create, Properties, Benchmark) plus the Volumes menu (change credentials, header
// backup/restore, re-encrypt). Long work runs off the UI thread with a busy indicator and Cancel.
#pragma once
#include <QFutureWatcher>
#include <QMainWindow>
#include <QSet>
#include <functional>
#include <memory>

#include "gui/dialog_factory.h"
#include "gui/settings.h"
#include "gui/slot_model.h"

class QComboBox;
class QTableView;
class QCheckBox;
class QPushButton;
class QFileSystemWatcher;
class QSystemTrayIcon;
class QMenu;
class QLabel;

namespace warpvol::gui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  MainWindow(std::shared_ptr<DialogFactory> dialogs, std::shared_ptr<Settings> settings,
             SlotModel::Source source = {}, QWidget* parent = nullptr);
  QString volume_path() const;
  void set_volume_path(const QString& p);
  SlotModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QLabel* protection_banner() const { return protection_banner_; }
  QComboBox* path_combo() const { return path_; }
  DialogFactory& dialogs() { return *dialogs_; }
  // Runs fn on a worker thread; on_done(error message or empty) back on the UI thread. Returns at once.
  void run_busy(const QString& what, std::function<void()> fn, std::function<void(const QString&)> on_done);
  bool busy() const { return busy_; }
  // The volume an action works on: the selected row's container when a mounted row is selected, else the path box.
  QString target_volume() const;

 public slots:
  void select_file();
  void mount_selected();
  void dismount_selected();
  void dismount_everything();
  void create_volume();
  void show_properties();
  void show_benchmark();
  void change_credentials();
  void header_backup_restore();
  void reencrypt();
  void refresh();

 signals:
  void operation_finished(const QString& error);
  // Hidden-volume protection of a mounted slot refused a write (emitted once per slot and mount, on refresh).
  void protection_triggered(int slot, const QString& message);

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void closeEvent(QCloseEvent* e) override;

 private:
  void build_tray();
  void rebuild_tray_menu();
  int selected_slot() const;
  void remember(const QString& path);
  void notify_triggered_protections();
  std::shared_ptr<DialogFactory> dialogs_;
  std::shared_ptr<Settings> settings_;
  SlotModel* model_;
  QTableView* table_;
  QComboBox* path_;
  QCheckBox* never_history_;
  QFileSystemWatcher* watcher_;
  QLabel* protection_banner_ = nullptr;
  QSystemTrayIcon* tray_ = nullptr;
  QMenu* tray_menu_ = nullptr;
  bool busy_ = false;
  QSet<QString> notified_;  // "slot:container:mounted" of mounts whose triggered protection was announced
};

}  // namespace warpvol::gui
