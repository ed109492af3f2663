// The normal-user half of gui.udisks_user_mount (run_udisks.sh runs it as `nobody` against mock_udisksd on a
// private system bus): what the main window's Mount and Dismount do for a desktop user, through the GUI's own
// operations -- the FUSE plaintext device served as this user, the loop device and the mount through udisks2.
// Usage: gui_udisks_user VOLUME PASSWORD_FILE
// Writes 3 MiB + a few random bytes into <mount>/home/data.bin and prints "sha256 HEX" for root to check after it
// has dismounted. Exit 0 only when every step did what it should; 3 when the GUI reports a privilege problem and
// the mount is refused with it.
#include <fcntl.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QRandomGenerator>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "core/mount/loop_device.h"
#include "core/mount/runtime.h"
#include "gui/operations.h"
#include "gui/slot_model.h"

using namespace warpvol;

namespace {

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("FAILED: " + what);
  std::printf("ok: %s\n", what.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: gui_udisks_user VOLUME PASSWORD_FILE\n");
    return 1;
  }
  try {
    check(::geteuid() != 0, "running as a normal user (uid " + std::to_string(::geteuid()) + ")");
    QFile pw(argv[2]);
    if (!pw.open(QIODevice::ReadOnly)) throw std::runtime_error("cannot read the password file");
    const QByteArray password = pw.readAll().trimmed();
    gui::MountParams p;
    p.volume = QString::fromLocal8Bit(argv[1]);
    p.open.credentials.password =
        LockedBytes(reinterpret_cast<const uint8_t*>(password.constData()), size_t(password.size()));
    p.open.credentials.pim = 1;  // as run_udisks.sh created it, so one key derivation runs
    p.open.prf = PrfId::Sha256;

    // Where the GUI reports a problem (the window then does not offer Mount), the mount itself must be refused
    // for the same reason before anything starts: exit 3.
    if (const QString why = gui::privilege_problem(); !why.isEmpty()) {
      std::printf("privilege problem: %s\n", why.toUtf8().constData());
      try {
        gui::mount_volume(p);
      } catch (const std::exception& e) {
        std::printf("mount refused: %s\n", e.what());
        return 3;
      }
      throw std::runtime_error("FAILED: mounted although the GUI reported a privilege problem");
    }
    std::printf("ok: the GUI sees no privilege problem\n");
    const mount::MountRecord rec = gui::mount_volume(p);
    check(rec.mount_helper == "udisks2", "mounted through udisks2 (helper \"" + rec.mount_helper + "\")");
    check(rec.loop_device.rfind("/dev/loop", 0) == 0, "loop device " + rec.loop_device);
    check(mount::loop_backing_file(rec.loop_device) == rec.plaintext_device,
          "the loop device is backed by our plaintext file " + rec.plaintext_device);
    check(!rec.mount_point.empty() && std::filesystem::is_directory(rec.mount_point + "/home"),
          "filesystem mounted at " + rec.mount_point);

    gui::SlotModel model;  // what the main window's slot table shows, from the mount registry
    model.refresh();
    check(model.rowCount() == 1 && model.rows()[0].mount_point.toStdString() == rec.mount_point,
          "the slot table shows the udisks2 mount point");

    // Data through the whole stack: this user's write -> ext4 -> loop (root) -> FUSE (this user) -> container.
    QByteArray data(3 * 1024 * 1024 + 1234, Qt::Uninitialized);
    QRandomGenerator::securelySeeded().fillRange(reinterpret_cast<quint32*>(data.data()), data.size() / 4);
    const std::string file = rec.mount_point + "/home/data.bin";
    {
      QFile f(QString::fromStdString(file));
      check(f.open(QIODevice::WriteOnly) && f.write(data) == data.size() && f.flush() && ::fsync(f.handle()) == 0,
            "wrote " + std::to_string(data.size()) + " bytes to " + file);
    }
    // `warpvol dismount` (core's dismount) cannot unmount what udisks2 mounted for a normal user: it says how.
    std::string refusal;
    try {
      mount::dismount(mount::Registry(), rec, false);
    } catch (const std::exception& e) {
      refusal = e.what();
    }
    check(refusal.find("udisksctl unmount -b " + rec.loop_device) != std::string::npos,
          "the CLI's dismount refuses and says what to do: " + refusal);

    const std::string mp = rec.mount_point, loop = rec.loop_device;
    const auto warnings = gui::dismount_slot(rec.slot, false);
    check(warnings.empty(), "dismounted without warnings");
    check(mount::Registry().load_all().empty(), "the slot is free again");
    check(mount::loop_backing_file(loop).empty(), "udisks2 deleted " + loop);
    check(!std::filesystem::exists(mp), "udisks2 removed the mount folder " + mp);
    std::printf("sha256 %s\n", QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex().constData());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gui_udisks_user: %s\n", e.what());
    return 1;
  }
}
