// A desktop notification: the tray icon's balloon when there is a visible tray, otherwise
// org.freedesktop.Notifications over the session bus (what notify-send uses). Either may be missing (no tray, no
// session bus, no notification daemon): the caller's own visible state stays the primary signal.
#pragma once
#include <QString>

class QSystemTrayIcon;

namespace warpvol::gui {

// Returns true when one of the two ways accepted the notification.
bool notify_desktop(QSystemTrayIcon* tray, const QString& title, const QString& text, bool critical);

}  // namespace warpvol::gui
