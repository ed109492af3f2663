#include "gui/main_window.h"

#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressDialog>
#include <QPushButton>
#include <QSystemTrayIcon>
#include <QTableView>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "core/create/change.h"
#include "core/kdf/kdf_stop.h"
#include "core/mount/runtime.h"
#include "gui/benchmark_dialog.h"
#include "gui/create_wizard.h"
#include "gui/credentials_widget.h"
#include "gui/desktop_notify.h"
#include "gui/mount_dialog.h"
#include "gui/operations.h"
#include "gui/preferences.h"
#include "gui/reencrypt_dialog.h"
#include "gui/simple_dialogs.h"

namespace warpvol::gui {

MainWindow::MainWindow(std::shared_ptr<DialogFactory> dialogs, std::shared_ptr<Settings> settings,
                       SlotModel::Source source, QWidget* parent)
    : QMainWindow(parent), dialogs_(std::move(dialogs)), settings_(std::move(settings)) {
  setWindowTitle("warpvol");
  setWindowIcon(QIcon(":/icons/warpvol.svg"));
  setAcceptDrops(true);
  resize(960, 560);
  auto* central = new QWidget(this);
  auto* l = new QVBoxLayout(central);

  model_ = new SlotModel(std::move(source), this);
  table_ = new QTableView(central);
  table_->setObjectName("slots");
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setSectionResizeMode(SlotModel::Container, QHeaderView::Stretch);
  // The state ("hidden protected (TRIGGERED: ...)") must be readable in full, never elided.
  table_->horizontalHeader()->setSectionResizeMode(SlotModel::State, QHeaderView::ResizeToContents);
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->verticalHeader()->hide();
  // A triggered hidden-volume protection is said in words above the table, not only in a column.
  protection_banner_ = new QLabel(central);
  protection_banner_->setObjectName("protection_banner");
  protection_banner_->setWordWrap(true);
  protection_banner_->setStyleSheet("QLabel { color: white; background: #b00020; padding: 6px; font-weight: bold; }");
  protection_banner_->hide();
  l->addWidget(protection_banner_);
  l->addWidget(table_, 1);

  auto* row = new QHBoxLayout;
  path_ = new QComboBox(central);
  path_->setObjectName("volume_path");
  path_->setEditable(true);
  path_->setInsertPolicy(QComboBox::NoInsert);
  path_->addItems(settings_->history());
  path_->setCurrentText(QString());
  row->addWidget(path_, 1);
  auto* select = new QPushButton(tr("Select File..."), central);
  row->addWidget(select);
  auto* select_device = new QPushButton(tr("Select Device..."), central);
  select_device->setObjectName("select_device");
  row->addWidget(select_device);
  connect(select_device, &QPushButton::clicked, this, &MainWindow::select_device);
  never_history_ = new QCheckBox(tr("Never save history"), central);
  never_history_->setChecked(settings_->never_save_history());
  row->addWidget(never_history_);
  l->addLayout(row);

  auto* buttons = new QHBoxLayout;
  auto add = [&](const QString& text, const char* name, void (MainWindow::*slot)()) {
    auto* b = new QPushButton(text, central);
    b->setObjectName(name);
    connect(b, &QPushButton::clicked, this, slot);
    buttons->addWidget(b);
  };
  add(tr("Mount"), "mount", &MainWindow::mount_selected);
  add(tr("Dismount"), "dismount", &MainWindow::dismount_selected);
  add(tr("Dismount All"), "dismount_all", &MainWindow::dismount_everything);
  add(tr("Create Volume"), "create", &MainWindow::create_volume);
  add(tr("Properties"), "properties", &MainWindow::show_properties);
  add(tr("Benchmark"), "benchmark", &MainWindow::show_benchmark);
  l->addLayout(buttons);
  setCentralWidget(central);

  build_menus();

  connect(select, &QPushButton::clicked, this, &MainWindow::select_file);
  connect(never_history_, &QCheckBox::toggled, this, [this](bool on) {
    settings_->set_never_save_history(on);
    if (on) {
      const QString current = path_->currentText();
      path_->clear();
      path_->setCurrentText(current);
    }
  });
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
    if (const SlotRow* r = model_->row_at(i.row()); r && !r->mount_point.isEmpty())
      QDesktopServices::openUrl(QUrl::fromLocalFile(r->mount_point));
  });

  // Refresh when the registry changes (volumes mounted from the CLI too), and every 2 s for dead FUSE processes.
  watcher_ = new QFileSystemWatcher(this);
  try {
    mount::Registry reg;
    if (QFileInfo(QString::fromStdString(reg.dir())).isDir()) watcher_->addPath(QString::fromStdString(reg.dir()));
  } catch (const std::exception&) {
  }
  connect(watcher_, &QFileSystemWatcher::directoryChanged, this, &MainWindow::refresh);
  auto* timer = new QTimer(this);
  connect(timer, &QTimer::timeout, this, &MainWindow::refresh);
  timer->start(2000);
  connect(model_, &QAbstractItemModel::modelReset, this, &MainWindow::rebuild_tray_menu);
  build_tray();
  refresh();
  setup_auto_dismount();
}

QString MainWindow::volume_path() const { return path_->currentText().trimmed(); }
void MainWindow::set_volume_path(const QString& p) { path_->setCurrentText(p); }

void MainWindow::remember(const QString& path) {
  settings_->add_history(path);
  if (!settings_->never_save_history() && path_->findText(path) < 0) path_->insertItem(0, path);
}

void MainWindow::refresh() {
  model_->refresh();
  notify_triggered_protections();
}

void MainWindow::notify_triggered_protections() {
  QStringList banner;
  for (const SlotRow& r : model_->rows())
    if (r.protection_triggered)
      banner << tr("Slot %1 (%2): hidden volume protection TRIGGERED. A write into the hidden volume was refused "
                   "(damage to the hidden volume prevented); every write to this outer volume now fails: dismount "
                   "it.")
                    .arg(r.slot)
                    .arg(QFileInfo(r.container).fileName());
  protection_banner_->setText(banner.join("\n"));
  protection_banner_->setVisible(!banner.isEmpty());
  for (const SlotRow& r : model_->rows()) {
    if (!r.protection_triggered) continue;
    const QString key = QString("%1:%2:%3").arg(r.slot).arg(r.container).arg(r.mounted_at);
    if (notified_.contains(key)) continue;
    notified_.insert(key);
    const QString text = tr("Hidden volume protection was triggered on slot %1 (%2): a write into the hidden volume "
                            "was refused, so damage to the hidden volume was prevented. Every further write to the "
                            "outer volume fails; dismount it.")
                             .arg(r.slot)
                             .arg(r.container);
    notify_desktop(tray_, tr("warpvol: damage to hidden volume prevented"), text, true);
    emit protection_triggered(r.slot, text);
  }
}

int MainWindow::selected_slot() const {
  auto rows = table_->selectionModel()->selectedRows();
  if (rows.isEmpty()) return 0;
  const SlotRow* r = model_->row_at(rows.first().row());
  return r ? r->slot : 0;
}

QString MainWindow::target_volume() const {
  auto rows = table_->selectionModel()->selectedRows();
  if (!rows.isEmpty())
    if (const SlotRow* r = model_->row_at(rows.first().row()); r && !r->container.isEmpty()) return r->container;
  return volume_path();
}

void MainWindow::run_busy(const QString& what, std::function<void()> fn, std::function<void(const QString&)> on_done) {
  busy_ = true;
  auto* progress = new QProgressDialog(what, tr("Cancel"), 0, 0, this);
  progress->setWindowModality(Qt::WindowModal);
  progress->setMinimumDuration(300);
  auto cancelled = std::make_shared<bool>(false);
  auto* watcher = new QFutureWatcher<QString>(this);
  // Cancel abandons a key derivation in progress (kdf_stop.h); the modal dialog means only this operation runs.
  clear_kdf_stop();
  connect(progress, &QProgressDialog::canceled, this, [cancelled] {
    *cancelled = true;
    request_kdf_stop();
  });
  connect(watcher, &QFutureWatcher<QString>::finished, this, [=, this] {
    const QString err = watcher->result();
    progress->deleteLater();
    watcher->deleteLater();
    busy_ = false;
    refresh();
    clear_kdf_stop();
    // A cancelled operation that stopped is no error to show; one that finished before the Cancel counts as done.
    if (!(*cancelled && !err.isEmpty())) on_done(err);
    emit operation_finished(err);
  });
  watcher->setFuture(QtConcurrent::run([fn = std::move(fn)]() -> QString {
    try {
      fn();
      return {};
    } catch (const std::exception& e) {
      return QString::fromStdString(e.what());
    }
  }));
}

void MainWindow::select_file() {
  const QString f = dialogs_->choose_volume(this);
  if (!f.isEmpty()) set_volume_path(f);
}

void MainWindow::mount_selected() {
  const QString volume = volume_path();
  if (volume.isEmpty()) return dialogs_->message(this, tr("Mount"), tr("Select a volume first."), true);
  if (QString why = privilege_problem(); !why.isEmpty())
    return dialogs_->message(this, tr("Mount"), tr("Mounting is not possible here: %1").arg(why), true);
  MountDialog d(volume, this);
  const Preferences prefs = Preferences::load(*settings_);
  d.prefill(prefs.mount_read_only, QString());
  if (!dialogs_->run(d)) return;
  MountParams p = d.params();
  prefs.apply_to_mount(p);
  remember(volume);
  run_busy(tr("Deriving the header key and mounting %1...").arg(volume), [p] { mount_volume(p); },
           [this](const QString& err) {
             if (!err.isEmpty()) dialogs_->message(this, tr("Mount"), err, true);
           });
}

void MainWindow::dismount_selected() {
  const int slot = selected_slot();
  if (!slot) return dialogs_->message(this, tr("Dismount"), tr("Select a mounted volume in the table."), true);
  run_busy(tr("Dismounting slot %1...").arg(slot), [slot] { dismount_slot(slot, false); },
           [this, slot](const QString& err) {
             if (err.isEmpty()) return;
             if (dialogs_->confirm(this, tr("Dismount"), tr("%1\n\nForce the dismount (lazy unmount)?").arg(err)))
               run_busy(tr("Forcing..."), [slot] { dismount_slot(slot, true); }, [this](const QString& e) {
                 if (!e.isEmpty()) dialogs_->message(this, tr("Dismount"), e, true);
               });
           });
}

void MainWindow::dismount_everything() {
  auto failures = std::make_shared<std::vector<std::string>>();
  run_busy(tr("Dismounting all volumes..."), [failures] { *failures = dismount_all(false); },
           [this, failures](const QString& err) {
             QString text = err;
             for (const auto& f : *failures) text += QString::fromStdString(f) + "\n";
             if (!text.isEmpty()) dialogs_->message(this, tr("Dismount All"), text, true);
           });
}

void MainWindow::create_volume() {
  CreateWizard w(this);
  Preferences::load(*settings_).apply_to_wizard(w);
  w.on_benchmark = [this] { show_benchmark(); };
  dialogs_->run(w);
  refresh();
}

void MainWindow::show_properties() {
  // A mounted volume: its record has the header as it was opened; no password needed.
  if (const int slot = selected_slot()) {
    std::optional<mount::MountRecord> rec;
    try {
      rec = mount::Registry().load(slot);
    } catch (const std::exception&) {
    }
    if (rec) {
      if (auto props = mounted_volume_properties(*rec)) {
        PropertiesDialog pd(QString::fromStdString(rec->volume), *props, this);
        dialogs_->run(pd);
        return;
      }
    }
  }
  const QString volume = target_volume();
  if (volume.isEmpty()) return dialogs_->message(this, tr("Properties"), tr("Select a volume first."), true);
  CredentialsDialog cd(tr("Open %1").arg(volume), this);
  if (!dialogs_->run(cd)) return;
  OpenOptions o;
  o.credentials = cd.credentials()->credentials();
  auto props = std::make_shared<std::vector<std::pair<QString, QString>>>();
  run_busy(tr("Reading the header of %1...").arg(volume), [o, volume, props] { *props = volume_properties(volume, o); },
           [this, volume, props](const QString& err) {
             if (!err.isEmpty()) return dialogs_->message(this, tr("Properties"), err, true);
             PropertiesDialog pd(volume, *props, this);
             dialogs_->run(pd);
           });
}

void MainWindow::show_benchmark() {
  BenchmarkDialog d(this);
  d.run();
  dialogs_->run(d);
}

void MainWindow::change_credentials() {
  const QString volume = target_volume();
  if (volume.isEmpty()) return dialogs_->message(this, tr("Change"), tr("Select a volume first."), true);
  ChangeDialog d(volume, this);
  if (!dialogs_->run(d)) return;
  ChangeOptions o = d.options();
  run_busy(tr("Re-encrypting the headers of %1...").arg(volume),
           [o, volume] { warpvol::change_credentials(volume.toStdString(), o); }, [this](const QString& err) {
             dialogs_->message(this, tr("Change"), err.isEmpty() ? tr("The password and/or keyfiles were changed.") : err,
                               !err.isEmpty());
           });
}

void MainWindow::header_backup_restore() {
  const QString volume = target_volume();
  if (volume.isEmpty()) return dialogs_->message(this, tr("Headers"), tr("Select a volume first."), true);
  HeaderBackupDialog d(volume, this);
  if (!dialogs_->run(d)) return;
  const bool restore = d.restore(), embedded = d.from_embedded();
  const QString file = d.file();
  OpenOptions o = d.open_options();
  const std::optional<OpenOptions> hidden = d.hidden_options();
  run_busy(tr("Working on the headers of %1...").arg(volume),
           [=] {
             if (!restore) {
               BackupOptions b;
               b.open = o;
               b.hidden = hidden;
               warpvol::backup_headers(volume.toStdString(), file.toStdString(), b);
             } else {
               RestoreOptions r;
               r.open = o;
               if (!embedded) r.from_file = file.toStdString();
               warpvol::restore_headers(volume.toStdString(), r);
             }
           },
           [this, restore, hidden](const QString& err) {
             const QString done = restore   ? tr("The header was restored.")
                                  : hidden ? tr("The headers of the outer and the hidden volume were backed up.")
                                           : tr("The headers were backed up.");
             dialogs_->message(this, tr("Headers"), err.isEmpty() ? done : err, !err.isEmpty());
           });
}

void MainWindow::reencrypt() {
  ReencryptDialog d(this);
  if (!volume_path().isEmpty()) d.add_volume(volume_path());
  dialogs_->run(d);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const auto urls = e->mimeData()->urls();
  if (!urls.isEmpty() && urls.first().isLocalFile()) set_volume_path(urls.first().toLocalFile());
}

void MainWindow::build_tray() {
  if (!QSystemTrayIcon::isSystemTrayAvailable()) return;  // the app works fully without a tray
  tray_ = new QSystemTrayIcon(windowIcon(), this);
  tray_menu_ = new QMenu(this);
  tray_->setContextMenu(tray_menu_);
  tray_->setToolTip("warpvol");
  connect(tray_, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason r) {
    if (r == QSystemTrayIcon::Trigger) {
      show();
      raise();
      activateWindow();
    }
  });
  rebuild_tray_menu();
  tray_->show();
}

void MainWindow::rebuild_tray_menu() {
  if (!tray_menu_) return;
  tray_menu_->clear();
  tray_menu_->addAction(tr("Show warpvol"), this, [this] {
    show();
    raise();
  });
  tray_menu_->addSeparator();
  for (const SlotRow& r : model_->rows()) {
    QMenu* m = tray_menu_->addMenu(QString("%1: %2").arg(r.slot).arg(QFileInfo(r.container).fileName()));
    const QString mp = r.mount_point;
    const int slot = r.slot;
    m->addAction(tr("Open"), this, [mp] { QDesktopServices::openUrl(QUrl::fromLocalFile(mp)); });
    m->addAction(tr("Dismount"), this, [this, slot] {
      run_busy(tr("Dismounting slot %1...").arg(slot), [slot] { dismount_slot(slot, false); }, [this](const QString& e) {
        if (!e.isEmpty()) dialogs_->message(this, tr("Dismount"), e, true);
      });
    });
  }
  tray_menu_->addSeparator();
  tray_menu_->addAction(tr("Dismount All"), this, &MainWindow::dismount_everything);
  tray_menu_->addAction(tr("Quit"), qApp, &QApplication::quit);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  // With a tray, closing the window keeps the app (and its tray menu) running, like VeraCrypt.
  if (tray_ && tray_->isVisible()) {
    hide();
    e->ignore();
    return;
  }
  QMainWindow::closeEvent(e);
}

}  // namespace warpvol::gui
