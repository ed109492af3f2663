// Block devices and partitions that can hold a volume (VeraCrypt's Select Device), read from sysfs: /sys/block/<disk>
// and its <disk><N> partition folders, sizes in 512-byte sectors, model, removable and read-only flags, and where a
// device is mounted now (/proc/self/mounts). Empty disks (size 0: unused loop and zram devices) are left out.
#pragma once
#include <QString>
#include <vector>

namespace warpvol::gui {

struct BlockDevice {
  QString name;         // "sda1"
  QString path;         // "/dev/sda1"
  quint64 size = 0;     // bytes
  QString model;        // disks: vendor and model, or a loop device's backing file
  bool removable = false;
  bool read_only = false;
  bool partition = false;
  QString parent;       // a partition's disk ("sda")
  QString mount_point;  // where it is mounted now, else empty
  bool has_partitions = false;  // a disk with partitions (use a partition, not the whole disk)
  QString held_by;              // a device-mapper or md device built on it ("dm-0"), else empty
};

// sys_root and mounts are for tests (a fake tree and a fake mounts table).
std::vector<BlockDevice> list_block_devices(const QString& sys_root = "/sys", const QString& mounts = "/proc/self/mounts",
                                            const QString& dev_root = "/dev");

}  // namespace warpvol::gui
