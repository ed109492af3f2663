// A stand-in for udisksd on a private system bus, for the test gui.udisks_user_mount (run_udisks.sh). It serves the
// part of the UDisks2 D-Bus API that warpvol-gui uses as a normal user -- Manager.LoopSetup, Filesystem.Mount and
// Unmount, Loop.Delete -- and does what udisksd does in the kernel: LOOP_CONFIGURE on the file descriptor the caller
// passed (without autoclear), the Filesystem interface only once the new device was probed (blkid, after a delay
// as udev's), mount(8) with nosuid,nodev under <media>/<user name>/, and it removes the folder again on Unmount.
// It does not share code with core's loop or mount machinery: it is the other side of the conversation. There is
// no polkit here: every caller is authorised (udisksd would ask polkit at this point).
// Usage: mock_udisksd MEDIA_DIR   (prints "ready" once it owns org.freedesktop.UDisks2; stops on SIGTERM)
#include <fcntl.h>
#include <linux/loop.h>
#include <pwd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusObjectPath>
#include <QDBusUnixFileDescriptor>
#include <QDBusVirtualObject>
#include <QDateTime>
#include <QDir>
#include <QProcess>
#include <QSocketNotifier>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>

namespace {

const QString kRoot = "/org/freedesktop/UDisks2";
const QString kManager = kRoot + "/Manager";
const QString kBlocks = kRoot + "/block_devices/";
const QString kErr = "org.freedesktop.UDisks2.Error.Failed";

const char* kManagerXml = R"(<interface name="org.freedesktop.UDisks2.Manager">
  <method name="LoopSetup"><arg name="fd" type="h" direction="in"/><arg name="options" type="a{sv}" direction="in"/>
    <arg name="resulting_device" type="o" direction="out"/></method>
</interface>)";
const char* kLoopXml = R"(<interface name="org.freedesktop.UDisks2.Block"/>
<interface name="org.freedesktop.UDisks2.Loop">
  <method name="Delete"><arg name="options" type="a{sv}" direction="in"/></method>
</interface>)";
const char* kFilesystemXml = R"(<interface name="org.freedesktop.UDisks2.Filesystem">
  <method name="Mount"><arg name="options" type="a{sv}" direction="in"/>
    <arg name="mount_path" type="s" direction="out"/></method>
  <method name="Unmount"><arg name="options" type="a{sv}" direction="in"/></method>
</interface>)";

struct Block {
  QString device;       // /dev/loopN
  bool has_filesystem;  // what blkid found
  qint64 probed_at;     // ms since epoch when "udev" has probed it: the Filesystem interface appears then
  QString mount_point;  // "" when not mounted
};

// Runs a program; returns its exit code, stderr in *err.
int run(const QString& prog, const QStringList& args, QString* out = nullptr, QString* err = nullptr) {
  QProcess p;
  p.start(prog, args);
  if (!p.waitForFinished(30000)) return -1;
  if (out) *out = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
  if (err) *err = QString::fromUtf8(p.readAllStandardError()).trimmed();
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

class MockUdisks : public QDBusVirtualObject {
 public:
  explicit MockUdisks(QString media) : media_(std::move(media)) {}
  // On SIGTERM: what is still set up goes, so a failed test leaves no loop device behind.
  ~MockUdisks() override {
    for (auto& [path, b] : blocks_) {
      if (!b.mount_point.isEmpty()) run("umount", {"-l", b.mount_point});
      const QByteArray devb = b.device.toLocal8Bit();
      if (const int lfd = ::open(devb.constData(), O_RDONLY | O_CLOEXEC); lfd >= 0) {
        ::ioctl(lfd, LOOP_CLR_FD);
        ::close(lfd);
      }
    }
  }

  QString introspect(const QString& path) const override {
    if (path == kManager) return kManagerXml;
    auto it = blocks_.find(path);
    if (it == blocks_.end()) return {};
    QString xml = kLoopXml;
    if (it->second.has_filesystem && QDateTime::currentMSecsSinceEpoch() >= it->second.probed_at)
      xml += kFilesystemXml;
    return xml;
  }

  bool handleMessage(const QDBusMessage& msg, const QDBusConnection& bus) override {
    const QString iface = msg.interface(), member = msg.member();
    QDBusMessage reply;
    if (msg.path() == kManager && iface == "org.freedesktop.UDisks2.Manager" && member == "LoopSetup") {
      reply = loop_setup(msg);
    } else if (auto it = blocks_.find(msg.path()); it != blocks_.end()) {
      const bool has_fs = it->second.has_filesystem && QDateTime::currentMSecsSinceEpoch() >= it->second.probed_at;
      if (iface == "org.freedesktop.UDisks2.Filesystem" && !has_fs)  // as udisksd before (or without) a probe
        reply = msg.createErrorReply("org.freedesktop.DBus.Error.UnknownMethod",
                                     "No such interface 'org.freedesktop.UDisks2.Filesystem' on object at path " +
                                         msg.path());
      else if (iface == "org.freedesktop.UDisks2.Filesystem" && member == "Mount")
        reply = mount(msg, bus, it->second);
      else if (iface == "org.freedesktop.UDisks2.Filesystem" && member == "Unmount")
        reply = unmount(msg, it->second);
      else if (iface == "org.freedesktop.UDisks2.Loop" && member == "Delete")
        reply = remove(msg, it);
      else
        return false;
    } else {
      return false;
    }
    bus.send(reply);
    return true;
  }

 private:
  QDBusMessage loop_setup(const QDBusMessage& msg) {
    const QList<QVariant> args = msg.arguments();
    if (args.size() != 2) return msg.createErrorReply(kErr, "LoopSetup takes (h, a{sv})");
    const auto fd = args[0].value<QDBusUnixFileDescriptor>();
    const auto opts = qdbus_cast<QVariantMap>(args[1]);
    const bool ro = opts.value("read-only").toBool();
    if (!fd.isValid()) return msg.createErrorReply(kErr, "no file descriptor");
    const int ctl = ::open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (ctl < 0) return msg.createErrorReply(kErr, QString("/dev/loop-control: ") + std::strerror(errno));
    const int n = ::ioctl(ctl, LOOP_CTL_GET_FREE);
    ::close(ctl);
    if (n < 0) return msg.createErrorReply(kErr, QString("LOOP_CTL_GET_FREE: ") + std::strerror(errno));
    const QString dev = QString("/dev/loop%1").arg(n);
    const QByteArray devb = dev.toLocal8Bit();
    ::mknod(devb.constData(), S_IFBLK | 0660, makedev(7, unsigned(n)));  // no udev here; EEXIST is fine
    const int lfd = ::open(devb.constData(), (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
    if (lfd < 0) return msg.createErrorReply(kErr, dev + ": " + std::strerror(errno));
    struct loop_config cfg;
    std::memset(&cfg, 0, sizeof cfg);
    cfg.fd = uint32_t(fd.fileDescriptor());
    cfg.info.lo_flags = (ro ? LO_FLAGS_READ_ONLY : 0) | (opts.value("no-part-scan").toBool() ? 0 : LO_FLAGS_PARTSCAN);
    const int rc = ::ioctl(lfd, LOOP_CONFIGURE, &cfg);
    const int e = errno;
    ::close(lfd);
    if (rc != 0) return msg.createErrorReply(kErr, "LOOP_CONFIGURE " + dev + ": " + std::strerror(e));
    QString type;
    run("blkid", {"-p", "-o", "value", "-s", "TYPE", dev}, &type);
    const QString path = kBlocks + QString("loop%1").arg(n);
    blocks_[path] = Block{dev, !type.isEmpty(), QDateTime::currentMSecsSinceEpoch() + 300, {}};
    std::printf("LoopSetup %s -> %s (%s)\n", qPrintable(dev), qPrintable(path), type.isEmpty() ? "no filesystem"
                                                                                                 : qPrintable(type));
    std::fflush(stdout);
    return msg.createReply(QVariant::fromValue(QDBusObjectPath(path)));
  }

  QDBusMessage mount(const QDBusMessage& msg, const QDBusConnection& bus, Block& b) {
    if (!b.mount_point.isEmpty())
      return msg.createErrorReply("org.freedesktop.UDisks2.Error.AlreadyMounted", "already mounted at " + b.mount_point);
    const uint uid = bus.interface()->serviceUid(msg.service()).value();
    const struct passwd* pw = ::getpwuid(uid);
    const QString user = pw ? QString::fromLocal8Bit(pw->pw_name) : QString::number(uid);
    const QString where = media_ + "/" + user + "/" + QFileInfo(b.device).fileName();
    if (!QDir().mkpath(where)) return msg.createErrorReply(kErr, "cannot create " + where);
    QString err;
    if (run("mount", {"-o", "nosuid,nodev", b.device, where}, nullptr, &err) != 0) {
      QDir().rmdir(where);
      return msg.createErrorReply(kErr, "mount " + b.device + ": " + err);
    }
    b.mount_point = where;
    std::printf("Mount %s at %s for uid %u\n", qPrintable(b.device), qPrintable(where), uid);
    std::fflush(stdout);
    return msg.createReply(where);
  }

  QDBusMessage unmount(const QDBusMessage& msg, Block& b) {
    if (b.mount_point.isEmpty()) return msg.createErrorReply("org.freedesktop.UDisks2.Error.NotMounted", "not mounted");
    QString err;
    if (run("umount", {b.mount_point}, nullptr, &err) != 0)
      return msg.createErrorReply("org.freedesktop.UDisks2.Error.DeviceBusy", "umount: " + err);
    QDir().rmdir(b.mount_point);
    std::printf("Unmount %s\n", qPrintable(b.mount_point));
    std::fflush(stdout);
    b.mount_point.clear();
    return msg.createReply();
  }

  QDBusMessage remove(const QDBusMessage& msg, std::map<QString, Block>::iterator it) {
    if (!it->second.mount_point.isEmpty())
      return msg.createErrorReply("org.freedesktop.UDisks2.Error.DeviceBusy", "still mounted");
    const QByteArray devb = it->second.device.toLocal8Bit();
    const int lfd = ::open(devb.constData(), O_RDONLY | O_CLOEXEC);
    if (lfd < 0 || ::ioctl(lfd, LOOP_CLR_FD) != 0) {
      const int e = errno;
      if (lfd >= 0) ::close(lfd);
      return msg.createErrorReply(kErr, "LOOP_CLR_FD " + it->second.device + ": " + std::strerror(e));
    }
    ::close(lfd);
    std::printf("Delete %s\n", devb.constData());
    std::fflush(stdout);
    blocks_.erase(it);
    return msg.createReply();
  }

  QString media_;
  std::map<QString, Block> blocks_;  // by object path
};

int g_sigpipe[2];

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: mock_udisksd MEDIA_DIR\n");
    return 1;
  }
  // SIGTERM: leave the event loop through a pipe (no Qt calls in the handler).
  if (::pipe(g_sigpipe) != 0) return 1;
  std::signal(SIGTERM, [](int) { (void)!::write(g_sigpipe[1], "x", 1); });
  QSocketNotifier quit(g_sigpipe[0], QSocketNotifier::Read);
  QObject::connect(&quit, &QSocketNotifier::activated, &app, &QCoreApplication::quit);

  QDBusConnection bus = QDBusConnection::systemBus();
  if (!bus.isConnected()) {
    std::fprintf(stderr, "mock_udisksd: no system bus: %s\n", qPrintable(bus.lastError().message()));
    return 1;
  }
  MockUdisks udisks(QString::fromLocal8Bit(argv[1]));
  if (!bus.registerVirtualObject(kRoot, &udisks, QDBusConnection::SubPath) ||
      !bus.registerService("org.freedesktop.UDisks2")) {
    std::fprintf(stderr, "mock_udisksd: cannot register: %s\n", qPrintable(bus.lastError().message()));
    return 1;
  }
  std::printf("ready\n");
  std::fflush(stdout);
  return app.exec();
}
