#include "gui/resources.h"

#include <QtCore/qglobal.h>

// Q_INIT_RESOURCE declares the generated function, which lives in the global namespace.
static void init_warpvol_gui_resources() { Q_INIT_RESOURCE(warpvol_gui); }

namespace warpvol::gui {
void init_resources() {
  static const bool once = (init_warpvol_gui_resources(), true);
  (void)once;
}
}  // namespace warpvol::gui
