#include "gui/session_watcher.h"

#include <QDBusMessage>
#include <QDBusReply>

namespace warpvol::gui {

namespace {
const char* kLogindService = "org.freedesktop.login1";
const char* kLogindPath = "/org/freedesktop/login1";
const char* kLogindManager = "org.freedesktop.login1.Manager";
}  // namespace

SessionWatcher::SessionWatcher(QObject* parent)
    : SessionWatcher(QDBusConnection::sessionBus(), QDBusConnection::systemBus(), parent) {}

SessionWatcher::SessionWatcher(QDBusConnection session, QDBusConnection system, QObject* parent)
    : QObject(parent), session_(std::move(session)), system_(std::move(system)) {
  // Any sender: the screen saver's bus name differs between desktops, and the signal is what matters.
  if (session_.isConnected()) {
    const bool fd = session_.connect(QString(), "/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver",
                                     "ActiveChanged", this, SLOT(on_active_changed(bool)));
    const bool gnome = session_.connect(QString(), "/org/gnome/ScreenSaver", "org.gnome.ScreenSaver",
                                        "ActiveChanged", this, SLOT(on_active_changed(bool)));
    screen_saver_ = fd || gnome;
  }
  if (system_.isConnected())
    logind_ = system_.connect(kLogindService, kLogindPath, kLogindManager, "PrepareForSleep", this,
                              SLOT(on_prepare_for_sleep(bool)));
}

void SessionWatcher::on_active_changed(bool active) { emit screen_lock_changed(active); }

void SessionWatcher::on_prepare_for_sleep(bool starting) {
  emit prepare_for_sleep(starting);
  if (!starting && want_lock_) want_sleep_lock(true);  // woken up: ready for the next sleep
}

bool SessionWatcher::want_sleep_lock(bool on) {
  want_lock_ = on;
  if (!on) {
    lock_ = QDBusUnixFileDescriptor();  // closing the descriptor releases the lock
    return false;
  }
  if (lock_.isValid() || !system_.isConnected()) return lock_.isValid();
  QDBusMessage m = QDBusMessage::createMethodCall(kLogindService, kLogindPath, kLogindManager, "Inhibit");
  m << QString("sleep") << QString("warpvol") << QString("Dismount encrypted volumes before sleeping")
    << QString("delay");
  QDBusReply<QDBusUnixFileDescriptor> r = system_.call(m, QDBus::Block, 3000);
  if (r.isValid()) lock_ = r.value();
  return lock_.isValid();
}

void SessionWatcher::sleep_handled() { lock_ = QDBusUnixFileDescriptor(); }

}  // namespace warpvol::gui
