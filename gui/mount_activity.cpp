#include "gui/mount_activity.h"

#include <QFile>

#include "core/mount/runtime.h"

namespace warpvol::gui {

std::optional<quint64> process_io_counter(int pid, const QString& proc_root) {
  if (pid <= 0) return std::nullopt;
  QFile f(QString("%1/%2/io").arg(proc_root).arg(pid));
  if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
  // Plain values and flags, not std::optional: GCC 12 warns falsely (-Wmaybe-uninitialized) on optionals here.
  quint64 rchar = 0, wchar = 0;
  bool have_rchar = false, have_wchar = false;
  for (const QByteArray& line : f.readAll().split('\n')) {
    if (line.startsWith("rchar:")) {
      rchar = line.mid(6).trimmed().toULongLong(&have_rchar);
    } else if (line.startsWith("wchar:")) {
      wchar = line.mid(6).trimmed().toULongLong(&have_wchar);
    }
  }
  if (!have_rchar || !have_wchar) return std::nullopt;
  return rchar + wchar;
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
