// warpvol-gui: single instance (a second start raises the first window through a local socket), tray when the
// desktop has one, settings in QStandardPaths locations.
#include <unistd.h>

#include <QApplication>
#include <QLocalServer>
#include <QLocalSocket>
#include <QSystemTrayIcon>

#include "core/mount/mounter.h"
#include "core/util/secure.h"
#include "gui/main_window.h"
#include "gui/termination_signals.h"

#ifdef WARPVOL_HAVE_GPU
#include "gpu/gpu_engine.h"
#endif

int main(int argc, char** argv) {
  warpvol::make_process_undumpable();
  QApplication app(argc, argv);
  QApplication::setApplicationName("warpvol");
  QApplication::setOrganizationName("warpvol");
  QApplication::setDesktopFileName("warpvol-gui");
  QApplication::setQuitOnLastWindowClosed(false);
#ifdef WARPVOL_HAVE_GPU
  warpvol::gpu::register_engine();
#endif

  const QString name = QString("warpvol-gui-%1").arg(::getuid());
  {
    QLocalSocket probe;
    probe.connectToServer(name);
    if (probe.waitForConnected(300)) {
      const QStringList args = QApplication::arguments();
      probe.write(("raise\n" + (args.size() > 1 ? args[1] : QString())).toUtf8());
      probe.waitForBytesWritten(1000);
      return 0;
    }
  }
  QLocalServer::removeServer(name);
  QLocalServer server;
  server.listen(name);

  // Logout and shutdown stop the program with SIGTERM: quit in order, so auto-dismount's quit rule runs.
  warpvol::gui::TerminationSignals termination;
  QObject::connect(&termination, &warpvol::gui::TerminationSignals::termination_requested, &app, &QApplication::quit);

  auto settings = std::make_shared<warpvol::gui::Settings>();
  warpvol::gui::MainWindow w(std::make_shared<warpvol::gui::DialogFactory>(), settings);
  QObject::connect(&server, &QLocalServer::newConnection, &w, [&] {
    QLocalSocket* s = server.nextPendingConnection();
    QObject::connect(s, &QLocalSocket::readyRead, &w, [s, &w] {
      const QStringList lines = QString::fromUtf8(s->readAll()).split('\n');
      if (lines.size() > 1 && !lines[1].isEmpty()) w.set_volume_path(lines[1]);
      w.show();
      w.raise();
      w.activateWindow();
      s->deleteLater();
    });
  });
  if (QApplication::arguments().size() > 1) w.set_volume_path(QApplication::arguments()[1]);
  QObject::connect(&app, &QApplication::lastWindowClosed, &app, [&] {
    // Without a tray the last window closing ends the app.
    if (!QSystemTrayIcon::isSystemTrayAvailable()) app.quit();
  });
  w.show();
  return app.exec();
}
