// QTest, offscreen: auto-dismount. The policy driven by fake counters, a fake clock and fake events; the D-Bus
// wiring against a private bus (a fake screen saver and a fake logind that hands out a real inhibitor descriptor);
// the main window's handling; and, as root with /dev/fuse, the I/O counter of a real warpvol-mountd mount and the
// inactivity rule dismounting it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusUnixFileDescriptor>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QTest>

#include "core/create/create.h"
#include "core/engine/cpu_engine.h"
#include "core/mount/runtime.h"
#include "gui/auto_dismount.h"
#include "gui/main_window.h"
#include "gui/mount_activity.h"
#include "gui/operations.h"
#include "gui/session_watcher.h"
#include "gui/settings.h"
#include "gui/termination_signals.h"

using namespace warpvol::gui;

namespace {

SlotRow row(int slot) {
  return SlotRow{.slot = slot, .container = QString("/data/v%1.hc").arg(slot), .size = 1 << 20, .mount_point = "/mnt",
                 .chain = "AES", .engine = "cpu"};
}

class SilentFactory : public DialogFactory {
 public:
  QStringList messages;
  bool run(QDialog&) override { return false; }
  void message(QWidget*, const QString&, const QString& text, bool) override { messages << text; }
  bool confirm(QWidget*, const QString&, const QString&) override { return false; }
};

}  // namespace

// Stands in for systemd-logind's Inhibit: returns the write end of a pipe; the lock is held while any copy of it is
// open, exactly like logind's descriptor.
class FakeLogind : public QObject {
  Q_OBJECT
  Q_CLASSINFO("D-Bus Interface", "org.freedesktop.login1.Manager")
 public:
  int read_end = -1;
  QStringList calls;
  ~FakeLogind() override {
    if (read_end >= 0) ::close(read_end);
  }
  // True when every copy of the write end is closed (the lock released).
  bool released() const {
    pollfd p{read_end, POLLIN, 0};
    return ::poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
  }
 public slots:
  QDBusUnixFileDescriptor Inhibit(const QString& what, const QString& who, const QString& why, const QString& mode) {
    calls << QStringList{what, who, why, mode}.join("|");
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return {};
    if (read_end >= 0) ::close(read_end);
    read_end = fds[0];
    QDBusUnixFileDescriptor out(fds[1]);  // duplicates
    ::close(fds[1]);
    return out;
  }
};

class GuiAutoDismount : public QObject {
  Q_OBJECT
 private slots:
  void inactivity_dismounts_only_idle_slots_once() {
    std::map<int, quint64> counters{{1, 0}, {2, 100}, {3, 7}};
    AutoDismountPolicy p([&](const SlotRow& r) -> std::optional<quint64> {
      if (r.slot == 3) return std::nullopt;  // unreadable: never idle
      return counters[r.slot];
    });
    AutoDismountPrefs prefs;
    prefs.on_inactivity = true;
    prefs.inactivity_minutes = 5;
    p.set_prefs(prefs);
    QSignalSpy asked(&p, &AutoDismountPolicy::dismount_requested);
    const std::vector<SlotRow> rows{row(1), row(2), row(3)};
    const qint64 minute = 60 * 1000;
    auto tick = [&](qint64 t, const std::vector<SlotRow>& r) {
      counters[1] += 4096;  // slot 1 is busy at every sample
      p.tick(t, r);
    };
    for (int m = 0; m <= 4; ++m) tick(m * minute, rows);
    QCOMPARE(asked.count(), 0);
    QCOMPARE(p.idle_ms(2, 4 * minute), 4 * minute);
    QCOMPARE(p.idle_ms(3, 4 * minute), qint64(-1));
    tick(5 * minute, rows);
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.first().at(0).value<QList<int>>(), QList<int>{2});
    QVERIFY(asked.first().at(1).toString().contains("5 minute"));
    QCOMPARE(asked.first().at(2).toBool(), false);
    tick(6 * minute, rows);  // asked once, not every sample
    QCOMPARE(asked.count(), 1);
    tick(7 * minute, {row(1), row(3)});  // slot 2 went; it comes back fresh
    tick(8 * minute, rows);
    tick(12 * minute, rows);
    QCOMPARE(asked.count(), 1);
    counters[2] += 1;  // I/O on it restarts the clock
    tick(13 * minute - 1, rows);
    tick(17 * minute, rows);
    QCOMPARE(asked.count(), 1);
    tick(18 * minute, rows);
    QCOMPARE(asked.count(), 2);
    QCOMPARE(asked.last().at(0).value<QList<int>>(), QList<int>{2});
    prefs.on_inactivity = false;
    p.set_prefs(prefs);
    p.tick(100 * minute, {row(4)});
    p.tick(200 * minute, {row(4)});
    QCOMPARE(asked.count(), 2);
  }

  void events_dismount_everything_only_when_chosen() {
    AutoDismountPolicy p({});
    QSignalSpy asked(&p, &AutoDismountPolicy::dismount_requested);
    p.screen_lock_changed(true);
    p.prepare_for_sleep(true);
    p.session_ending();
    QCOMPARE(asked.count(), 0);
    AutoDismountPrefs prefs;
    prefs.on_screen_lock = prefs.on_suspend = prefs.on_quit = prefs.force = true;
    p.set_prefs(prefs);
    p.screen_lock_changed(false);  // unlocking dismounts nothing
    p.prepare_for_sleep(false);    // nor does waking up
    QCOMPARE(asked.count(), 0);
    p.screen_lock_changed(true);
    p.prepare_for_sleep(true);
    p.session_ending();
    QCOMPARE(asked.count(), 3);
    for (const auto& a : asked) {
      QVERIFY(a.at(0).value<QList<int>>().isEmpty());  // all volumes
      QVERIFY(a.at(2).toBool());                        // forced, as chosen
    }
    QVERIFY(asked[0].at(1).toString().contains("locked"));
    QVERIFY(asked[1].at(1).toString().contains("sleep"));
  }

  void sigterm_becomes_an_orderly_quit_request() {
    TerminationSignals t;
    QSignalSpy spy(&t, &TerminationSignals::termination_requested);
    ::raise(SIGTERM);  // without the handler this would end the test
    QVERIFY(spy.wait(5000));
    QCOMPARE(spy.first().at(0).toInt(), SIGTERM);
    ::raise(SIGHUP);
    QTRY_COMPARE(spy.count(), 2);
    QCOMPARE(spy.last().at(0).toInt(), SIGHUP);
  }

  void io_counter_reads_proc_io() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("42"));
    QFile f(dir.filePath("42/io"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("rchar: 1000\nwchar: 234\nsyscr: 5\nsyscw: 2\nread_bytes: 0\n");
    f.close();
    QCOMPARE(process_io_counter(42, dir.path()), std::optional<quint64>(1234));
    QCOMPARE(process_io_counter(43, dir.path()), std::nullopt);
    QCOMPARE(process_io_counter(0), std::nullopt);
    const auto self = process_io_counter(int(::getpid()));
    QVERIFY(self.has_value());
    QFile me("/proc/self/status");
    QVERIFY(me.open(QIODevice::ReadOnly));
    me.readAll();
    QVERIFY(*process_io_counter(int(::getpid())) > *self);  // our own read moved it
  }

  // Real D-Bus signals on a private bus reach the policy through SessionWatcher; the sleep lock is taken from
  // (fake) logind with "delay" mode and released once the dismount is done.
  void session_watcher_over_a_private_bus() {
    QProcess daemon;
    daemon.start("dbus-daemon", {"--session", "--nofork", "--print-address=1"});
    QVERIFY2(daemon.waitForStarted(5000), "dbus-daemon (Debian package dbus-daemon) must be installed");
    QVERIFY(daemon.waitForReadyRead(5000));
    const QString address = QString::fromUtf8(daemon.readLine()).trimmed();
    {
      QDBusConnection bus = QDBusConnection::connectToBus(address, "watcher");
      QDBusConnection desk = QDBusConnection::connectToBus(address, "desktop");
      QVERIFY(bus.isConnected() && desk.isConnected());
      // In its own thread, as logind is its own process: SessionWatcher's Inhibit call blocks.
      QThread logind_thread;
      FakeLogind logind;
      logind.moveToThread(&logind_thread);
      logind_thread.start();
      QVERIFY(desk.registerService("org.freedesktop.login1"));
      QVERIFY(desk.registerObject("/org/freedesktop/login1", &logind, QDBusConnection::ExportAllSlots));

      SessionWatcher w(bus, bus);
      QVERIFY(w.screen_saver_connected());
      QVERIFY(w.logind_connected());
      QSignalSpy lock(&w, &SessionWatcher::screen_lock_changed);
      QSignalSpy sleep(&w, &SessionWatcher::prepare_for_sleep);

      QVERIFY(!w.holds_sleep_lock());
      QTRY_VERIFY(w.want_sleep_lock(true));
      QCOMPARE(logind.calls.first(), QString("sleep|warpvol|Dismount encrypted volumes before sleeping|delay"));
      QVERIFY(!logind.released());

      auto screensaver = QDBusMessage::createSignal("/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver",
                                                    "ActiveChanged");
      screensaver << true;
      QVERIFY(desk.send(screensaver));
      QVERIFY(lock.wait(5000));
      QCOMPARE(lock.first().at(0).toBool(), true);
      auto gnome = QDBusMessage::createSignal("/org/gnome/ScreenSaver", "org.gnome.ScreenSaver", "ActiveChanged");
      gnome << false;
      QVERIFY(desk.send(gnome));
      QTRY_COMPARE(lock.count(), 2);

      auto going = QDBusMessage::createSignal("/org/freedesktop/login1", "org.freedesktop.login1.Manager",
                                              "PrepareForSleep");
      going << true;
      QVERIFY(desk.send(going));
      QVERIFY(sleep.wait(5000));
      QCOMPARE(sleep.first().at(0).toBool(), true);
      w.sleep_handled();
      QTRY_VERIFY(logind.released());  // the system may sleep now
      auto woke = QDBusMessage::createSignal("/org/freedesktop/login1", "org.freedesktop.login1.Manager",
                                             "PrepareForSleep");
      woke << false;
      QVERIFY(desk.send(woke));
      QTRY_COMPARE(sleep.count(), 2);
      QTRY_VERIFY(w.holds_sleep_lock());  // taken again for the next sleep
      QCOMPARE(logind.calls.size(), 2);
      w.want_sleep_lock(false);
      QTRY_VERIFY(logind.released());
      desk.unregisterObject("/org/freedesktop/login1");
      logind_thread.quit();
      logind_thread.wait();
    }
    QDBusConnection::disconnectFromBus("watcher");
    QDBusConnection::disconnectFromBus("desktop");
    daemon.terminate();
    daemon.waitForFinished(5000);
  }

  void main_window_reports_what_auto_dismount_did() {
    QTemporaryDir dir;
    qputenv("WARPVOL_RUNTIME_DIR", dir.filePath("run").toUtf8());
    auto f = std::make_shared<SilentFactory>();
    auto settings = std::make_shared<Settings>(dir.filePath("config"));
    Preferences prefs;
    prefs.auto_dismount.on_screen_lock = true;
    prefs.save(*settings);
    std::vector<SlotRow> rows{row(9)};
    MainWindow w(f, settings, [&] { return rows; });
    QVERIFY(w.auto_dismount_policy()->prefs().on_screen_lock);
    QSignalSpy notes(&w, &MainWindow::notified);
    emit w.session_watcher()->screen_lock_changed(true);
    QCOMPARE(notes.count(), 1);
    QCOMPARE(notes.first().at(0).toString(), QString("Auto-dismount failed"));
    QVERIFY(notes.first().at(1).toString().contains("slot 9 is not in use"));
    QVERIFY(notes.first().at(1).toString().contains("the screen was locked"));
    QVERIFY(f->messages.isEmpty());  // no dialog while the screen is locked
    prefs.auto_dismount.on_screen_lock = false;
    prefs.save(*settings);
    emit w.preferences_changed();
    emit w.session_watcher()->screen_lock_changed(true);
    QCOMPARE(notes.count(), 1);
    qunsetenv("WARPVOL_RUNTIME_DIR");
  }

  // A real mount (plaintext device only, no filesystem): reading it moves the FUSE process's counter, an idle
  // mount's counter stands still, and the inactivity rule then dismounts it through the main window.
  void real_mount_counter_and_inactivity_dismount() {
    if (::geteuid() != 0) QSKIP("mounting needs root here");
    if (::access("/dev/fuse", R_OK | W_OK) != 0) QSKIP("no /dev/fuse");
    QTemporaryDir dir;
    qputenv("WARPVOL_RUNTIME_DIR", dir.filePath("run").toUtf8());
    qputenv("WARPVOL_MOUNTD", WARPVOL_BINARY_DIR "/warpvol-mountd");
    const std::string vol = dir.filePath("idle.hc").toStdString(), pw = "auto dismount password";
    warpvol::Credentials cred;
    cred.password = warpvol::LockedBytes(reinterpret_cast<const uint8_t*>(pw.data()), pw.size());
    cred.pim = 1;
    warpvol::CreateOptions c;
    c.path = vol;
    c.size = 1 << 20;
    c.pim = 1;
    c.credentials = cred;
    c.engine = std::make_shared<warpvol::CpuEngine>(0);
    warpvol::create_volume(c);
    MountParams mp;
    mp.volume = QString::fromStdString(vol);
    mp.open.credentials = cred;
    mp.no_filesystem = true;
    const warpvol::mount::MountRecord rec = mount_volume(mp);
    struct Cleanup {  // a failed check must not leave the mount behind
      int slot;
      ~Cleanup() {
        try {
          if (warpvol::mount::Registry().load(slot)) dismount_slot(slot, true);
        } catch (...) {
        }
      }
    } cleanup{rec.slot};

    auto settings = std::make_shared<Settings>(dir.filePath("config"));
    Preferences prefs;
    prefs.auto_dismount.on_inactivity = true;
    prefs.auto_dismount.inactivity_minutes = 1;
    prefs.save(*settings);
    MainWindow w(std::make_shared<SilentFactory>(), settings);
    QTRY_COMPARE(w.model()->rowCount(), 1);
    AutoDismountPolicy* p = w.auto_dismount_policy();
    const auto before = mount_activity(rec.slot);
    QVERIFY(before.has_value());
    p->tick(0, w.model()->rows());
    {
      QFile dev(QString::fromStdString(rec.plaintext_device));
      QVERIFY(dev.open(QIODevice::ReadOnly | QIODevice::Unbuffered));
      QCOMPARE(dev.read(64 * 1024).size(), 64 * 1024);
    }
    const auto after = mount_activity(rec.slot);
    QVERIFY(after.has_value() && *after > *before);
    // Closing the device sends its last requests (flush, release) a moment later; then the counter settles.
    std::optional<quint64> settled = after;
    for (int i = 0; i < 50; ++i) {
      QTest::qWait(100);
      const std::optional<quint64> now = mount_activity(rec.slot);
      if (now == settled) break;
      settled = now;
    }
    QTest::qWait(1500);
    QCOMPARE(mount_activity(rec.slot), settled);  // idle: the counter stands still
    p->tick(50 * 1000, w.model()->rows());  // the read: active since the last sample
    QSignalSpy notes(&w, &MainWindow::notified);
    p->tick(80 * 1000, w.model()->rows());  // 30 s idle: not yet
    QCOMPARE(notes.count(), 0);
    p->tick(111 * 1000, w.model()->rows());  // 61 s idle
    QCOMPARE(notes.count(), 1);
    QCOMPARE(notes.first().at(0).toString(), QString("Auto-dismount"));
    QVERIFY(notes.first().at(1).toString().contains("idle.hc"));
    QCOMPARE(w.model()->rowCount(), 0);
    QVERIFY(!warpvol::mount::Registry().load(rec.slot));
    qunsetenv("WARPVOL_RUNTIME_DIR");
  }
};

QTEST_MAIN(GuiAutoDismount)
#include "test_gui_autodismount.moc"
