// Auto-dismount and tray notifications in the main window: the policy (gui/auto_dismount.h) gets the preferences, a sample of every
// mount's I/O counter every 30 s, the desktop's screen-lock and sleep events (gui/session_watcher.h) and the end of
// the application; what it asks for is dismounted here, without dialogs.
#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>

#include "gui/auto_dismount.h"
#include "gui/main_window.h"
#include "gui/mount_activity.h"
#include "gui/operations.h"
#include "gui/session_watcher.h"
#include "gui/slot_notifications.h"

namespace warpvol::gui {

namespace {
constexpr int kSampleMs = 30 * 1000;
}

void MainWindow::setup_auto_dismount() {
  policy_ = new AutoDismountPolicy([](const SlotRow& r) { return mount_activity(r.slot); }, this);
  session_ = new SessionWatcher(this);
  auto apply = [this] {
    const Preferences p = Preferences::load(*settings_);
    policy_->set_prefs(p.auto_dismount);
    session_->want_sleep_lock(p.auto_dismount.on_suspend);
  };
  apply();
  connect(this, &MainWindow::preferences_changed, this, apply);
  connect(session_, &SessionWatcher::screen_lock_changed, policy_, &AutoDismountPolicy::screen_lock_changed);
  connect(session_, &SessionWatcher::prepare_for_sleep, this, [this](bool starting) {
    policy_->prepare_for_sleep(starting);  // dismounts synchronously through dismount_requested
    if (starting) session_->sleep_handled();
  });
  connect(qApp, &QCoreApplication::aboutToQuit, policy_, &AutoDismountPolicy::session_ending);
  // An X11/XSMP logout asks running programs to save their data first; the volumes go then, before the display does.
  connect(qApp, &QGuiApplication::commitDataRequest, policy_, [this] { policy_->session_ending(); });
  connect(policy_, &AutoDismountPolicy::dismount_requested, this, &MainWindow::auto_dismount);
  auto clock = std::make_shared<QElapsedTimer>();
  clock->start();
  auto* sampler = new QTimer(this);
  connect(sampler, &QTimer::timeout, this, [this, clock] {
    if (policy_->prefs().on_inactivity) policy_->tick(clock->elapsed(), model_->rows());
  });
  sampler->start(kSampleMs);

  // Tray notifications for every mount and dismount the slot table sees (this window's, the CLI's, auto-dismount's).
  auto tracker = std::make_shared<SlotChangeTracker>();
  tracker->update(model_->rows());
  connect(model_, &QAbstractItemModel::modelReset, this, [this, tracker] {
    const auto changes = tracker->update(model_->rows());
    if (!quiet_slot_changes_)
      for (const SlotChange& c : changes) notify(c.title, c.text);
  });
}

void MainWindow::auto_dismount(const QList<int>& which, const QString& reason, bool force) {
  refresh();
  std::vector<SlotRow> targets;
  for (const SlotRow& r : model_->rows())
    if (which.isEmpty() || which.contains(r.slot)) targets.push_back(r);
  if (targets.empty()) return;
  QStringList done, failed;
  for (const SlotRow& r : targets) {
    const QString name = QString("%1 (%2)").arg(r.slot).arg(QFileInfo(r.container).fileName());
    try {
      dismount_slot(r.slot, force);
      done << name;
    } catch (const std::exception& e) {
      failed << QString("%1: %2").arg(name, QString::fromStdString(e.what()));
    }
  }
  quiet_slot_changes_ = true;
  refresh();
  quiet_slot_changes_ = false;
  if (!done.isEmpty()) notify(tr("Auto-dismount"), tr("Dismounted slot %1: %2.").arg(done.join(", "), reason));
  if (!failed.isEmpty())
    notify(tr("Auto-dismount failed"), tr("%1 (%2). Close the files open on it, or turn on forced auto-dismount in "
                                          "Preferences.")
                                           .arg(failed.join("; "), reason));
}

}  // namespace warpvol::gui
