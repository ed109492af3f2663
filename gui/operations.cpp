#include "gui/operations.h"

#include <fcntl.h>
#include <unistd.h>

#include <QObject>
#include <cerrno>

#include "core/format/header_json.h"
#include "core/format/open.h"
#include "core/io/file.h"
#include "core/util/error.h"
#include "gui/udisks.h"

namespace warpvol::gui {

namespace {
const char* kUdisksHelper = "udisks2";
}

mount::MountRecord mount_volume(const MountParams& p) {
  const std::string path = p.volume.toStdString();
  const int fd = ::open(path.c_str(), (p.read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
  if (fd < 0) throw_errno("cannot open " + path);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  auto file = open_file("/proc/self/fd/" + std::to_string(fd), OpenMode::ReadOnly);
  OpenedHeader h = open_header(*file, p.open);

  mount::MountRequest req;
  req.volume = path;
  req.read_only = p.read_only;
  req.filesystem = p.no_filesystem ? "none" : "auto";
  req.fs_options = p.fs_options.toStdString();
  req.mount_point = p.mount_point.toStdString();
  req.slot = p.slot;
  req.engine = p.engine;
  req.header_info = header_json(h, path).dump();
  if (p.protect_hidden) {
    if (h.slot == SlotKind::Hidden)
      throw Error(ErrorKind::Usage, "the password opened the hidden volume itself: protection needs the outer "
                                    "volume's password");
    OpenOptions hidden;
    hidden.credentials = *p.protect_hidden;
    hidden.slot = SlotKind::Hidden;
    OpenedHeader hh = open_header(*file, hidden);
    req.protect_hidden = true;
    req.protect_start = hh.data_offset;
    req.protect_end = hh.data_offset + std::max<uint64_t>(hh.data_size, hh.fields.hidden_volume_size);
  }
  if (!p.no_filesystem && !mount::have_mount_privilege()) {
    // A desktop user: the plaintext device is served by our FUSE process; udisks2 sets up the loop device and
    // mounts it, and polkit asks the user in the desktop's own way.
    req.filesystem = "none";
    req.allow_root_access = true;  // udisksd, running as root, attaches the loop device to our plaintext file
    mount::MountRecord rec = mount::mount_volume(req, fd, h);
    mount::Registry reg;
    try {
      UdisksMount m = udisks_loop_and_mount(rec.plaintext_device, p.read_only);
      rec.loop_device = m.loop_device;
      rec.mount_point = m.mount_point;
      rec.mount_helper = kUdisksHelper;
      reg.save(rec);
    } catch (...) {
      try {
        mount::dismount(reg, rec, true);
      } catch (...) {  // udisks' reason is the one to report
      }
      throw;
    }
    return rec;
  }
  return mount::mount_volume(req, fd, h);
}

namespace {
// Mounts made through udisks2 are unmounted through it first; then the FUSE process is stopped as usual.
mount::DismountResult dismount_record(const mount::Registry& reg, mount::MountRecord rec, bool force) {
  if (rec.mount_helper == kUdisksHelper) {
    udisks_unmount_and_delete(rec.loop_device);
    rec.loop_device.clear();
    rec.mount_point.clear();
    rec.mount_helper.clear();
    reg.save(rec);
  }
  return mount::dismount(reg, rec, force);
}
}  // namespace

std::vector<std::string> dismount_slot(int slot, bool force) {
  mount::Registry reg;
  auto rec = reg.load(slot);
  if (!rec) throw Error(ErrorKind::Usage, "slot " + std::to_string(slot) + " is not in use");
  return dismount_record(reg, *rec, force).warnings;
}

std::vector<std::string> dismount_all(bool force) {
  std::vector<std::string> failures;
  mount::Registry reg;
  for (const auto& rec : reg.load_all()) {
    try {
      dismount_record(reg, rec, force);
    } catch (const std::exception& e) {
      failures.push_back("slot " + std::to_string(rec.slot) + ": " + e.what());
    }
  }
  return failures;
}

namespace {
template <class Json>
std::vector<std::pair<QString, QString>> properties_from_json(const Json& j) {
  std::vector<std::pair<QString, QString>> out;
  for (const auto& [k, v] : j.items()) {
    QString value = v.is_string() ? QString::fromStdString(v.template get<std::string>()) : QString::fromStdString(v.dump());
    out.emplace_back(QString::fromStdString(k), value);
  }
  return out;
}
}  // namespace

std::vector<std::pair<QString, QString>> volume_properties(const QString& volume, const OpenOptions& open) {
  auto file = open_volume_file(volume.toStdString());
  OpenedHeader h = open_header(*file, open);
  // items() iterates a view into the JSON object: the object must outlive the loop, so it is a named local.
  const nlohmann::ordered_json j = header_json(h, volume.toStdString());
  return properties_from_json(j);
}

std::optional<std::vector<std::pair<QString, QString>>> mounted_volume_properties(const mount::MountRecord& rec) {
  if (rec.header_info.empty()) return std::nullopt;
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(rec.header_info);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  if (!j.is_object()) return std::nullopt;
  auto out = properties_from_json(j);
  // What only the mount knows.
  out.emplace_back(QObject::tr("mounted in slot"), QString::number(rec.slot));
  out.emplace_back(QObject::tr("mount point"), QString::fromStdString(rec.mount_point.empty() ? rec.plaintext_device
                                                                                             : rec.mount_point));
  out.emplace_back(QObject::tr("filesystem"), QString::fromStdString(rec.filesystem));
  out.emplace_back(QObject::tr("read-only"), rec.read_only ? QObject::tr("yes") : QObject::tr("no"));
  out.emplace_back(QObject::tr("engine"), QString::fromStdString(rec.engine));
  return out;
}

QString privilege_problem() {
  if (mount::have_mount_privilege()) return {};
  if (::access("/dev/fuse", R_OK | W_OK) != 0)
    return QObject::tr("/dev/fuse is not accessible to this user: the FUSE plaintext device cannot be served "
                       "(add the user to the 'fuse' group or run as root)");
  if (!udisks_available())
    return QObject::tr("not root and no udisks2 service on the system bus: loop devices and mounting need "
                       "CAP_SYS_ADMIN or udisks2 with polkit");
  if (!mount::fuse_user_allow_other())
    return QObject::tr("/etc/fuse.conf has no user_allow_other line: udisks2 attaches the loop device as root, and "
                       "root cannot read a normal user's FUSE plaintext device without it (add the line "
                       "user_allow_other to /etc/fuse.conf)");
  return {};
}

}  // namespace warpvol::gui
