// The main window's actions for preferences, favourites, the keyfile generator and Help, kept apart from the core
// volume actions in main_window.cpp.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDesktopServices>
#include <QFileInfo>
#include <QSystemTrayIcon>
#include <QTableView>
#include <QUrl>

#include "gui/about_dialog.h"
#include "gui/device_picker.h"
#include "gui/favourites_dialog.h"
#include "gui/keyfile_generator.h"
#include "gui/main_window.h"
#include "gui/mount_dialog.h"
#include "gui/operations.h"
#include "gui/preferences.h"
#include "gui/preferences_dialog.h"

namespace warpvol::gui {

void MainWindow::show_preferences() {
  PreferencesDialog d(Preferences::load(*settings_), this);
  if (!dialogs_->run(d)) return;
  const Preferences p = d.preferences();
  p.save(*settings_);
  never_history_->setChecked(!p.save_history);
  emit preferences_changed();
}

Favourite MainWindow::current_favourite() const {
  const auto rows = table_->selectionModel()->selectedRows();
  if (!rows.isEmpty())
    if (const SlotRow* r = model_->row_at(rows.first().row())) {
      Favourite f{.volume = r->container, .slot = r->slot, .read_only = r->read_only};
      // A volume mounted without a filesystem has its plaintext device there, not a folder to mount at again.
      if (QFileInfo(r->mount_point).isDir()) f.mount_point = r->mount_point;
      return f;
    }
  return Favourite{.volume = volume_path()};
}

void MainWindow::organize_favourites() {
  const FavouritesStore store = FavouritesStore::beside(settings_->file_path());
  std::vector<Favourite> list;
  try {
    list = store.load();
  } catch (const std::exception& e) {
    return dialogs_->message(this, tr("Favourites"), QString::fromStdString(e.what()), true);
  }
  FavouritesDialog d(list, current_favourite(), this);
  if (!dialogs_->run(d)) return;
  try {
    store.save(d.favourites());
  } catch (const std::exception& e) {
    dialogs_->message(this, tr("Favourites"), QString::fromStdString(e.what()), true);
  }
}

void MainWindow::add_current_to_favourites() {
  const Favourite f = current_favourite();
  if (f.volume.isEmpty())
    return dialogs_->message(this, tr("Favourites"), tr("Select a mounted volume or a container first."), true);
  const FavouritesStore store = FavouritesStore::beside(settings_->file_path());
  try {
    std::vector<Favourite> list = store.load();
    for (const Favourite& g : list)
      if (g.volume == f.volume)
        return dialogs_->message(this, tr("Favourites"), tr("%1 is already a favourite.").arg(f.volume), false);
    list.push_back(f);
    if (const QString why = validate_favourites(list); !why.isEmpty())
      return dialogs_->message(this, tr("Favourites"), why, true);
    store.save(list);
    notify(tr("Favourites"), tr("%1 was added to the favourites.").arg(f.volume));
  } catch (const std::exception& e) {
    dialogs_->message(this, tr("Favourites"), QString::fromStdString(e.what()), true);
  }
}

void MainWindow::mount_favourites() {
  auto list = std::make_shared<std::vector<Favourite>>();
  try {
    *list = FavouritesStore::beside(settings_->file_path()).load();
  } catch (const std::exception& e) {
    return dialogs_->message(this, tr("Mount Favourites"), QString::fromStdString(e.what()), true);
  }
  if (list->empty())
    return dialogs_->message(this, tr("Mount Favourites"),
                             tr("There are no favourites yet: Favourites > Organize Favourite Volumes adds them."), true);
  if (QString why = privilege_problem(); !why.isEmpty())
    return dialogs_->message(this, tr("Mount Favourites"), tr("Mounting is not possible here: %1").arg(why), true);
  mount_favourite_at(list, 0);
}

// One favourite at a time through the Mount dialog and mount_volume, as Mount does; the next starts when this one
// has finished (or was cancelled or failed: its error is shown and the rest still mount).
void MainWindow::mount_favourite_at(std::shared_ptr<std::vector<Favourite>> list, size_t i) {
  for (; i < list->size(); ++i) {
    const Favourite& f = (*list)[i];
    const QString abs = QFileInfo(f.volume).absoluteFilePath();
    bool mounted = false;
    for (const SlotRow& r : model_->rows()) mounted = mounted || r.container == abs || r.container == f.volume;
    if (!mounted) break;  // already mounted ones are skipped, like VeraCrypt
  }
  if (i >= list->size()) {
    emit favourites_finished();
    return;
  }
  const Favourite f = (*list)[i];
  MountDialog d(f.volume, this);
  d.prefill(f.read_only, f.mount_point);
  if (!dialogs_->run(d)) return mount_favourite_at(list, i + 1);
  MountParams p = d.params();
  p.slot = f.slot;
  Preferences::load(*settings_).apply_to_mount(p);
  remember(f.volume);
  run_busy(tr("Deriving the header key and mounting %1...").arg(f.volume), [p] { mount_volume(p); },
           [this, list, i, f](const QString& err) {
             if (!err.isEmpty())
               dialogs_->message(this, tr("Mount Favourites"), QString("%1: %2").arg(f.volume, err), true);
             else
               notify(tr("Mounted"), f.label.isEmpty() ? f.volume : f.label);
             mount_favourite_at(list, i + 1);
           });
}

void MainWindow::select_device() {
  DevicePickerDialog d(this);
  if (dialogs_->run(d)) set_volume_path(d.selected_path());
}

void MainWindow::keyfile_generator() {
  KeyfileGeneratorDialog d(this);
  dialogs_->run(d);
}

void MainWindow::show_about() {
  AboutDialog d(this);
  dialogs_->run(d);
}

void MainWindow::show_documentation() {
  const QString readme = readme_path();
  if (readme.isEmpty())
    return dialogs_->message(this, tr("Documentation"),
                             tr("No README was found on this system; `warpvol --help` lists the commands."), false);
  QDesktopServices::openUrl(QUrl::fromLocalFile(readme));
}

void MainWindow::notify(const QString& title, const QString& text) {
  emit notified(title, text);
  if (!tray_ || !tray_->isVisible() || !Preferences::load(*settings_).notifications) return;
  tray_->showMessage(title, text, QSystemTrayIcon::Information, 5000);
}

}  // namespace warpvol::gui
