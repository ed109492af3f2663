#include "gui/block_devices.h"

#include <QDir>
#include <QFile>
#include <QMap>

namespace warpvol::gui {

namespace {

QString read_line(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readLine()).trimmed();
}

// /dev path -> mount point; octal escapes (\040 for a space) decoded as the kernel writes them.
QMap<QString, QString> mounted_devices(const QString& mounts) {
  QMap<QString, QString> out;
  QFile f(mounts);
  if (!f.open(QIODevice::ReadOnly)) return out;
  auto unescape = [](QString s) {
    for (int i = s.indexOf('\\'); i >= 0 && i + 3 < s.size(); i = s.indexOf('\\', i + 1)) {
      bool ok = false;
      const int c = s.mid(i + 1, 3).toInt(&ok, 8);
      if (ok) s.replace(i, 4, QChar(c));
    }
    return s;
  };
  for (const QByteArray& line : f.readAll().split('\n')) {
    const QList<QByteArray> parts = line.split(' ');
    if (parts.size() >= 2 && parts[0].startsWith("/dev/"))
      out.insert(unescape(QString::fromUtf8(parts[0])), unescape(QString::fromUtf8(parts[1])));
  }
  return out;
}

BlockDevice read_device(const QDir& dir, const QString& name, const QString& dev_root,
                        const QMap<QString, QString>& mounts) {
  BlockDevice d;
  d.name = name;
  d.path = dev_root + "/" + name;
  d.size = read_line(dir.filePath("size")).toULongLong() * 512;
  d.read_only = read_line(dir.filePath("ro")) == "1";
  d.mount_point = mounts.value(d.path);
  d.held_by = QDir(dir.filePath("holders")).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).join(", ");
  return d;
}

}  // namespace

std::vector<BlockDevice> list_block_devices(const QString& sys_root, const QString& mounts, const QString& dev_root) {
  const QMap<QString, QString> mounted = mounted_devices(mounts);
  std::vector<BlockDevice> out;
  const QDir block(sys_root + "/block");
  QStringList disks = block.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
  for (const QString& disk : disks) {
    const QDir dd(block.filePath(disk));
    BlockDevice d = read_device(dd, disk, dev_root, mounted);
    if (d.size == 0) continue;
    d.removable = read_line(dd.filePath("removable")) == "1";
    const QString vendor = read_line(dd.filePath("device/vendor")), model = read_line(dd.filePath("device/model"));
    d.model = QStringList({vendor, model}).join(' ').trimmed();
    if (const QString backing = read_line(dd.filePath("loop/backing_file")); !backing.isEmpty()) d.model = backing;
    std::vector<BlockDevice> parts;
    for (const QString& sub : dd.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
      if (!QFile::exists(dd.filePath(sub + "/partition"))) continue;
      BlockDevice p = read_device(QDir(dd.filePath(sub)), sub, dev_root, mounted);
      p.partition = true;
      p.parent = disk;
      p.removable = d.removable;
      p.read_only = p.read_only || d.read_only;
      parts.push_back(p);
    }
    d.has_partitions = !parts.empty();
    out.push_back(d);
    out.insert(out.end(), parts.begin(), parts.end());
  }
  return out;
}

}  // namespace warpvol::gui
