// The GUI's settings in QStandardPaths locations (QSettings IniFormat under AppConfigLocation): container path
// history (unless "never save history"), last mount options, window geometry.
#pragma once
#include <QSettings>
#include <QString>
#include <QStringList>
#include <memory>

namespace warpvol::gui {

class Settings {
 public:
  // dir empty: QStandardPaths::AppConfigLocation. Tests pass a temporary folder.
  explicit Settings(const QString& dir = {});
  QStringList history() const;
  void add_history(const QString& path);  // no-op when never_save_history()
  void clear_history();
  bool never_save_history() const;
  void set_never_save_history(bool on);  // turning it on also clears the stored history
  QString file_path() const;
  QSettings& raw() { return *s_; }

 private:
  std::unique_ptr<QSettings> s_;
};

}  // namespace warpvol::gui
