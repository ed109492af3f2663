#include "gui/desktop_notify.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QSystemTrayIcon>
#include <QVariantMap>

namespace warpvol::gui {

bool notify_desktop(QSystemTrayIcon* tray, const QString& title, const QString& text, bool critical) {
  if (tray && tray->isVisible() && QSystemTrayIcon::supportsMessages()) {
    tray->showMessage(title, text, critical ? QSystemTrayIcon::Critical : QSystemTrayIcon::Information, 0);
    return true;
  }
  QDBusConnection bus = QDBusConnection::sessionBus();
  if (!bus.isConnected()) return false;
  QDBusMessage m = QDBusMessage::createMethodCall("org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                                  "org.freedesktop.Notifications", "Notify");
  QVariantMap hints;
  hints["urgency"] = QVariant::fromValue<uchar>(critical ? 2 : 1);
  // app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout (0 = until dismissed)
  m << QString("warpvol") << uint(0) << QString("warpvol") << title << text << QStringList() << hints << int(0);
  const QDBusMessage reply = bus.call(m, QDBus::Block, 2000);
  return reply.type() == QDBusMessage::ReplyMessage;
}

}  // namespace warpvol::gui
