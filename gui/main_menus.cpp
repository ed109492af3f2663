// The main window's menu bar, VeraCrypt's layout (Volumes, Favourites, Tools, Settings, Help), with keyboard
// shortcuts for the main actions. Every action has an object name ("action_mount", ...) so tests find it.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QMenu>
#include <QMenuBar>

#include "gui/main_window.h"

namespace warpvol::gui {

void MainWindow::build_menus() {
  // Window context: a shortcut works wherever the focus is in the main window (table, path box, buttons).
  auto add = [this](QMenu* menu, const QString& text, const char* name, const QKeySequence& keys, auto&& slot) {
    QAction* a = menu->addAction(text);
    a->setObjectName(name);
    if (!keys.isEmpty()) {
      a->setShortcut(keys);
      a->setShortcutContext(Qt::WindowShortcut);
    }
    connect(a, &QAction::triggered, this, slot);
    return a;
  };

  QMenu* volumes = menuBar()->addMenu(tr("&Volumes"));
  add(volumes, tr("Select File..."), "action_select_file", QKeySequence(Qt::CTRL | Qt::Key_O), &MainWindow::select_file);
  add(volumes, tr("Select Device..."), "action_select_device", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
      &MainWindow::select_device);
  add(volumes, tr("Mount"), "action_mount", QKeySequence(Qt::CTRL | Qt::Key_M), &MainWindow::mount_selected);
  add(volumes, tr("Dismount"), "action_dismount", QKeySequence(Qt::CTRL | Qt::Key_D), &MainWindow::dismount_selected);
  add(volumes, tr("Dismount All"), "action_dismount_all", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D),
      &MainWindow::dismount_everything);
  volumes->addSeparator();
  add(volumes, tr("Create Volume..."), "action_create", QKeySequence(Qt::CTRL | Qt::Key_N), &MainWindow::create_volume);
  add(volumes, tr("Volume Properties..."), "action_properties", QKeySequence(Qt::CTRL | Qt::Key_I),
      &MainWindow::show_properties);
  add(volumes, tr("Change Password or Keyfiles..."), "action_change", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
      &MainWindow::change_credentials);
  add(volumes, tr("Header Backup / Restore..."), "action_headers", QKeySequence(), &MainWindow::header_backup_restore);
  add(volumes, tr("Re-encrypt Volumes..."), "action_reencrypt", QKeySequence(), &MainWindow::reencrypt);
  volumes->addSeparator();
  add(volumes, tr("Quit"), "action_quit", QKeySequence(Qt::CTRL | Qt::Key_Q), [] { QApplication::quit(); });

  QMenu* favourites = menuBar()->addMenu(tr("F&avourites"));
  add(favourites, tr("Add Current Volume to Favourites"), "action_add_favourite", QKeySequence(),
      &MainWindow::add_current_to_favourites);
  add(favourites, tr("Organize Favourite Volumes..."), "action_organize_favourites",
      QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F), &MainWindow::organize_favourites);
  add(favourites, tr("Mount Favourite Volumes"), "action_mount_favourites",
      QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), &MainWindow::mount_favourites);

  QMenu* tools = menuBar()->addMenu(tr("&Tools"));
  add(tools, tr("Benchmark..."), "action_benchmark", QKeySequence(Qt::CTRL | Qt::Key_B), &MainWindow::show_benchmark);
  add(tools, tr("Keyfile Generator..."), "action_keyfile_generator", QKeySequence(Qt::CTRL | Qt::Key_K),
      &MainWindow::keyfile_generator);
  add(tools, tr("Refresh"), "action_refresh", QKeySequence(Qt::Key_F5), &MainWindow::refresh);
  add(tools, tr("Clear Volume History"), "action_clear_history", QKeySequence(), [this] {
    settings_->clear_history();
    path_->clear();
  });

  QMenu* settings = menuBar()->addMenu(tr("&Settings"));
  add(settings, tr("Preferences..."), "action_preferences", QKeySequence(Qt::CTRL | Qt::Key_Comma),
      &MainWindow::show_preferences);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  add(help, tr("Documentation"), "action_documentation", QKeySequence(Qt::Key_F1), &MainWindow::show_documentation);
  add(help, tr("About warpvol"), "action_about", QKeySequence(), &MainWindow::show_about);
}

}  // namespace warpvol::gui
