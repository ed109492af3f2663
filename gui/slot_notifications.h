// What changed in the slot table between two refreshes, as the tray notifications say it: a volume mounted (from
// this window or from the CLI), a volume dismounted. The first refresh after start-up reports nothing: volumes
// that were already mounted are not news.
#pragma once
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "gui/slot_model.h"

namespace warpvol::gui {

struct SlotChange {
  QString title;
  QString text;
};

class SlotChangeTracker {
 public:
  std::vector<SlotChange> update(const std::vector<SlotRow>& rows);

 private:
  std::optional<std::vector<SlotRow>> last_;
};

}  // namespace warpvol::gui
