// SIGTERM and SIGHUP as a Qt signal: a desktop session that ends (logout, shutdown) stops its programs with SIGTERM,
// and a terminal that closes sends SIGHUP. Turned into an orderly quit, they reach QCoreApplication::aboutToQuit,
// where auto-dismount's "at logout/quit" rule runs, instead of killing the process with volumes still mounted.
// The handler only writes a byte to a socket pair (async-signal-safe); the rest happens in the event loop.
#pragma once
#include <QObject>

class QSocketNotifier;

namespace warpvol::gui {

class TerminationSignals : public QObject {
  Q_OBJECT
 public:
  // One per process: installs the handlers for SIGTERM and SIGHUP.
  explicit TerminationSignals(QObject* parent = nullptr);
  ~TerminationSignals() override;

 signals:
  void termination_requested(int signo);

 private:
  QSocketNotifier* notifier_ = nullptr;
};

}  // namespace warpvol::gui
