#include "gui/udisks.h"

#include <fcntl.h>
#include <unistd.h>

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusInterface>
#include <QDBusReply>
#include <QDBusUnixFileDescriptor>
#include <QThread>

#include "core/util/error.h"

namespace warpvol::gui {

namespace {
const char* kService = "org.freedesktop.UDisks2";
}

bool udisks_available() {
  auto bus = QDBusConnection::systemBus();
  if (!bus.isConnected() || !bus.interface()) return false;
  return bus.interface()->isServiceRegistered(kService).value();
}

UdisksMount udisks_loop_and_mount(const std::string& plaintext_file, bool read_only) {
  if (!udisks_available())
    throw Error(ErrorKind::Usage, "udisks2 is not running on the system bus: mounting as a normal user needs it");
  const int fd = ::open(plaintext_file.c_str(), (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
  if (fd < 0) throw_errno("cannot open " + plaintext_file);
  QDBusUnixFileDescriptor qfd(fd);
  ::close(fd);  // QDBusUnixFileDescriptor keeps its own duplicate
  auto bus = QDBusConnection::systemBus();
  QDBusInterface manager(kService, "/org/freedesktop/UDisks2/Manager", "org.freedesktop.UDisks2.Manager", bus);
  QVariantMap opts;
  if (read_only) opts["read-only"] = true;
  QDBusReply<QDBusObjectPath> loop = manager.call("LoopSetup", QVariant::fromValue(qfd), opts);
  if (!loop.isValid()) throw Error(ErrorKind::Usage, "udisks2 LoopSetup: " + loop.error().message().toStdString());
  // The filesystem interface appears once udisks has probed the new block device.
  for (int attempt = 0; attempt < 50; ++attempt) {
    QDBusInterface fs(kService, loop.value().path(), "org.freedesktop.UDisks2.Filesystem", bus);
    if (fs.isValid()) {
      QDBusReply<QString> where = fs.call("Mount", QVariantMap{});
      if (!where.isValid()) throw Error(ErrorKind::Usage, "udisks2 Mount: " + where.error().message().toStdString());
      return {"/dev/" + loop.value().path().section('/', -1).toStdString(), where.value().toStdString()};
    }
    QThread::msleep(100);
  }
  throw Error(ErrorKind::Usage, "udisks2 found no filesystem on the volume's plaintext device");
}

void udisks_unmount_and_delete(const std::string& loop_device) {
  auto bus = QDBusConnection::systemBus();
  const QString object =
      "/org/freedesktop/UDisks2/block_devices/" + QString::fromStdString(loop_device).section('/', -1);
  QDBusInterface fs(kService, object, "org.freedesktop.UDisks2.Filesystem", bus);
  QDBusReply<void> un = fs.call("Unmount", QVariantMap{});
  if (!un.isValid()) throw Error(ErrorKind::Busy, "udisks2 Unmount: " + un.error().message().toStdString());
  QDBusInterface loop(kService, object, "org.freedesktop.UDisks2.Loop", bus);
  QDBusReply<void> del = loop.call("Delete", QVariantMap{});
  if (!del.isValid()) throw Error(ErrorKind::Busy, "udisks2 Loop.Delete: " + del.error().message().toStdString());
}

}  // namespace warpvol::gui
