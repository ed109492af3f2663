// The main window: slot table, container path with history, and the VeraCrypt-style buttons (Select File, Mount,
// Dismount, Dismount All, Create, Properties, Benchmark) plus VeraCrypt's menus with shortcuts (gui/main_menus.cpp):
// Volumes (change credentials, header backup/restore, re-encrypt), Favourites, Tools, Settings, Help. Favourites,
// Preferences and the tools are in gui/main_window_features.cpp, auto-dismount and tray notifications in
// gui/main_window_autodismount.cpp. Long work runs off the UI thread with a busy indicator and Cancel.
#pragma once
#include <QFutureWatcher>
#include <QMainWindow>
#include <QSet>
#include <functional>
#include <memory>

#include "gui/dialog_factory.h"
#include "gui/favourites.h"
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

class AutoDismountPolicy;
class SessionWatcher;

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
  AutoDismountPolicy* auto_dismount_policy() const { return policy_; }
  SessionWatcher* session_watcher() const { return session_; }

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
  // gui/main_window_features.cpp
  void show_preferences();
  void organize_favourites();
  void add_current_to_favourites();
  void mount_favourites();
  void keyfile_generator();
  void show_about();
  void show_documentation();
  void select_device();
  // gui/main_window_autodismount.cpp: dismounts without dialogs (the screen may be locked, the system going to
  // sleep, the session ending); what happened goes to notify(). which empty: all.
  void auto_dismount(const QList<int>& which, const QString& reason, bool force);

 signals:
  void operation_finished(const QString& error);
  // Hidden-volume protection of a mounted slot refused a write (emitted once per slot and mount, on refresh).
  void protection_triggered(int slot, const QString& message);
  void favourites_finished();  // Mount Favourites went through the whole list
  void preferences_changed();
  void notified(const QString& title, const QString& text);  // every notification, shown in the tray or not

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void closeEvent(QCloseEvent* e) override;

 private:
  void build_menus();  // gui/main_menus.cpp
  void setup_auto_dismount();  // gui/main_window_autodismount.cpp
  // What Add Current / Organize Favourites offer: the selected mounted row, else the path box.
  Favourite current_favourite() const;
  void mount_favourite_at(std::shared_ptr<std::vector<Favourite>> list, size_t i);
  void notify(const QString& title, const QString& text);
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
  AutoDismountPolicy* policy_ = nullptr;
  SessionWatcher* session_ = nullptr;
  bool quiet_slot_changes_ = false;  // auto-dismount says what it did itself, with the reason
};

}  // namespace warpvol::gui
