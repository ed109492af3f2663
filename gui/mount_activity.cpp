#include "gui/mount_activity.h"

#include <QFile>

#include "core/mount/runtime.h"

namespace warpvol::gui {

std::optional<quint64> process_io_counter(int pid, const QString& proc_root) {
  if (pid <= 0) return std::nullopt;
  QFile f(QString("%1/%2/io").arg(proc_root).arg(pid));
  if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
  std::optional<quint64> rchar, wchar;
  for (const QByteArray& line : f.readAll().split('\n')) {
    bool ok = false;
    if (line.startsWith("rchar:")) {
      rchar = line.mid(6).trimmed().toULongLong(&ok);
      if (!ok) rchar.reset();
    } else if (line.startsWith("wchar:")) {
      wchar = line.mid(6).trimmed().toULongLong(&ok);
      if (!ok) wchar.reset();
    }
  }
  if (!rchar || !wchar) return std::nullopt;
  return *rchar + *wchar;
}

std::optional<quint64> mount_activity(int slot) {
  try {
    auto rec = mount::Registry().load(slot);
    if (!rec || !mount::process_alive(rec->pid, rec->pid_start)) return std::nullopt;
    return process_io_counter(rec->pid);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace warpvol::gui
