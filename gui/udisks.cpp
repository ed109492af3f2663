#include "gui/udisks.h"

#include <fcntl.h>
#include <unistd.h>

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusObjectPath>
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

namespace {

// One method call, without introspection: udisks adds the Filesystem interface to a block object only after udev
// has probed the device, so a Mount may be refused as unknown for a moment and is simply asked again.
QDBusMessage call(const QDBusConnection& bus, const QString& object, const char* iface, const char* method,
                  const QList<QVariant>& args) {
  QDBusMessage m = QDBusMessage::createMethodCall(kService, object, QString("org.freedesktop.UDisks2.") + iface,
                                                  method);
  m.setArguments(args);
  return bus.call(m, QDBus::Block, 120000);  // polkit may wait for the user to answer its dialog
}

bool is_error(const QDBusMessage& reply) { return reply.type() == QDBusMessage::ErrorMessage; }

bool not_there_yet(const QDBusMessage& reply) {
  const QString e = reply.errorName();
  return e == "org.freedesktop.DBus.Error.UnknownMethod" || e == "org.freedesktop.DBus.Error.UnknownInterface" ||
         e == "org.freedesktop.DBus.Error.UnknownObject";
}

std::string block_object(const std::string& loop_device) {
  return "/org/freedesktop/UDisks2/block_devices/" + loop_device.substr(loop_device.rfind('/') + 1);
}

}  // namespace

UdisksMount udisks_loop_and_mount(const std::string& plaintext_file, bool read_only) {
  if (!udisks_available())
    throw Error(ErrorKind::Usage, "udisks2 is not running on the system bus: mounting as a normal user needs it");
  const int fd = ::open(plaintext_file.c_str(), (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
  if (fd < 0) throw_errno("cannot open " + plaintext_file);
  QDBusUnixFileDescriptor qfd(fd);
  ::close(fd);  // QDBusUnixFileDescriptor keeps its own duplicate
  auto bus = QDBusConnection::systemBus();
  QVariantMap opts;
  if (read_only) opts["read-only"] = true;
  opts["no-part-scan"] = true;  // the plaintext device is one filesystem, never a partition table
  const QDBusMessage loop = call(bus, "/org/freedesktop/UDisks2/Manager", "Manager", "LoopSetup",
                                 {QVariant::fromValue(qfd), opts});
  if (is_error(loop)) throw Error(ErrorKind::Usage, "udisks2 LoopSetup: " + loop.errorMessage().toStdString());
  const QString object = loop.arguments().value(0).value<QDBusObjectPath>().path();
  // Without a mount the loop device must go again, or it would keep the FUSE file (and so the volume) busy.
  auto fail = [&](const std::string& why) {
    call(bus, object, "Loop", "Delete", {QVariantMap{}});
    throw Error(ErrorKind::Usage, why);
  };
  for (int attempt = 0; attempt < 50; ++attempt) {
    const QDBusMessage where = call(bus, object, "Filesystem", "Mount", {QVariantMap{}});
    if (!is_error(where))
      return {"/dev/" + object.section('/', -1).toStdString(), where.arguments().value(0).toString().toStdString()};
    if (!not_there_yet(where)) fail("udisks2 Mount: " + where.errorMessage().toStdString());
    QThread::msleep(100);
  }
  fail("udisks2 found no filesystem on the volume's plaintext device (" + object.toStdString() + ")");
  return {};
}

void udisks_unmount_and_delete(const std::string& loop_device) {
  auto bus = QDBusConnection::systemBus();
  const QString object = QString::fromStdString(block_object(loop_device));
  const QDBusMessage un = call(bus, object, "Filesystem", "Unmount", {QVariantMap{}});
  if (is_error(un)) throw Error(ErrorKind::Busy, "udisks2 Unmount: " + un.errorMessage().toStdString());
  const QDBusMessage del = call(bus, object, "Loop", "Delete", {QVariantMap{}});
  if (is_error(del)) throw Error(ErrorKind::Busy, "udisks2 Loop.Delete: " + del.errorMessage().toStdString());
}

}  // namespace warpvol::gui
