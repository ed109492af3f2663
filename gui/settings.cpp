#include "gui/settings.h"

#include <QDir>
#include <QStandardPaths>

namespace warpvol::gui {

namespace {
constexpr int kMaxHistory = 20;
}

Settings::Settings(const QString& dir) {
  QString base = dir.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) : dir;
  QDir().mkpath(base);
  s_ = std::make_unique<QSettings>(base + "/warpvol-gui.ini", QSettings::IniFormat);
}

QStringList Settings::history() const { return s_->value("history/paths").toStringList(); }

void Settings::add_history(const QString& path) {
  if (never_save_history() || path.isEmpty()) return;
  QStringList h = history();
  h.removeAll(path);
  h.prepend(path);
  while (h.size() > kMaxHistory) h.removeLast();
  s_->setValue("history/paths", h);
  s_->sync();
}

void Settings::clear_history() {
  s_->remove("history/paths");
  s_->sync();
}

bool Settings::never_save_history() const { return s_->value("history/never_save", false).toBool(); }

void Settings::set_never_save_history(bool on) {
  s_->setValue("history/never_save", on);
  if (on) clear_history();
  s_->sync();
}

QString Settings::file_path() const { return s_->fileName(); }

}  // namespace warpvol::gui
