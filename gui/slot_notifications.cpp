#include "gui/slot_notifications.h"

#include <QFileInfo>
#include <QObject>

namespace warpvol::gui {

std::vector<SlotChange> SlotChangeTracker::update(const std::vector<SlotRow>& rows) {
  std::vector<SlotChange> out;
  auto find = [](const std::vector<SlotRow>& v, const SlotRow& r) {
    for (const SlotRow& x : v)
      if (x.slot == r.slot && x.container == r.container) return &x;
    return static_cast<const SlotRow*>(nullptr);
  };
  if (last_) {
    for (const SlotRow& r : rows)
      if (!find(*last_, r))
        out.push_back({QObject::tr("Volume mounted"),
                       QObject::tr("Slot %1: %2 at %3%4")
                           .arg(r.slot)
                           .arg(QFileInfo(r.container).fileName(), r.mount_point,
                                r.read_only ? QObject::tr(" (read-only)") : QString())});
    for (const SlotRow& r : *last_)
      if (!find(rows, r))
        out.push_back({QObject::tr("Volume dismounted"),
                       QObject::tr("Slot %1: %2").arg(r.slot).arg(QFileInfo(r.container).fileName())});
  }
  last_ = rows;
  return out;
}

}  // namespace warpvol::gui
