// Desktop session events for auto-dismount, from D-Bus: the screen saver's ActiveChanged(bool) on the session bus
// (org.freedesktop.ScreenSaver, as KDE, Xfce, Cinnamon and MATE send it, and org.gnome.ScreenSaver), and logind's
// PrepareForSleep(bool) on the system bus. While dismount-on-suspend is wanted it holds a logind "delay" inhibitor
// lock, so the system waits (up to logind's InhibitDelayMaxSec) for the dismount before it sleeps; release it with
// sleep_handled() once the volumes are gone.
#pragma once
#include <QDBusConnection>
#include <QDBusUnixFileDescriptor>
#include <QObject>

namespace warpvol::gui {

class SessionWatcher : public QObject {
  Q_OBJECT
 public:
  // Tests pass connections to private buses.
  SessionWatcher(QDBusConnection session, QDBusConnection system, QObject* parent = nullptr);
  explicit SessionWatcher(QObject* parent = nullptr);
  bool screen_saver_connected() const { return screen_saver_; }
  bool logind_connected() const { return logind_; }
  // Takes (or drops) the sleep delay lock; returns whether one is held.
  bool want_sleep_lock(bool on);
  bool holds_sleep_lock() const { return lock_.isValid(); }
  void sleep_handled();  // drops the lock until the system has woken up

 signals:
  void screen_lock_changed(bool locked);
  void prepare_for_sleep(bool starting);

 private slots:
  void on_active_changed(bool active);
  void on_prepare_for_sleep(bool starting);

 private:
  QDBusConnection session_, system_;
  bool screen_saver_ = false, logind_ = false, want_lock_ = false;
  QDBusUnixFileDescriptor lock_;
};

}  // namespace warpvol::gui
