// The icons (gui/warpvol-gui.qrc) live in the static library warpvol_gui. A static library's resource object is only
// linked when something refers to it, so every program using the library registers the resources through this call
// (MainWindow's constructor does); without it the icons are blank squares.
#pragma once

namespace warpvol::gui {
void init_resources();
}
