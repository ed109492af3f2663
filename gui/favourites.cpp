#include "gui/favourites.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QSaveFile>
#include <QSet>
#include <stdexcept>

#include "core/mount/runtime.h"

namespace warpvol::gui {

FavouritesStore FavouritesStore::beside(const QString& settings_file) {
  return FavouritesStore(QFileInfo(settings_file).absoluteDir().filePath("favourites.json"));
}

std::vector<Favourite> FavouritesStore::load() const {
  QFile f(file_);
  if (!f.exists()) return {};
  if (!f.open(QIODevice::ReadOnly)) throw std::runtime_error("cannot read " + file_.toStdString());
  QJsonParseError err;
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
  if (err.error != QJsonParseError::NoError || !doc.isObject())
    throw std::runtime_error(file_.toStdString() + " is damaged: " + err.errorString().toStdString());
  std::vector<Favourite> out;
  for (const QJsonValue& v : doc.object().value("favourites").toArray()) {
    const QJsonObject o = v.toObject();
    Favourite fav;
    fav.volume = o.value("volume").toString();
    fav.slot = o.value("slot").toInt(0);
    fav.mount_point = o.value("mount_point").toString();
    fav.read_only = o.value("read_only").toBool(false);
    fav.label = o.value("label").toString();
    if (!fav.volume.isEmpty()) out.push_back(fav);
  }
  return out;
}

void FavouritesStore::save(const std::vector<Favourite>& list) const {
  QJsonArray a;
  for (const Favourite& fav : list)
    a.append(QJsonObject{{"volume", fav.volume},
                         {"slot", fav.slot},
                         {"mount_point", fav.mount_point},
                         {"read_only", fav.read_only},
                         {"label", fav.label}});
  QDir().mkpath(QFileInfo(file_).absolutePath());
  QSaveFile f(file_);
  if (!f.open(QIODevice::WriteOnly) ||
      f.write(QJsonDocument(QJsonObject{{"favourites", a}}).toJson()) < 0 || !f.commit())
    throw std::runtime_error("cannot write " + file_.toStdString() + ": " + f.errorString().toStdString());
}

QString validate_favourites(const std::vector<Favourite>& list) {
  QSet<int> used_slots;
  QSet<QString> points;
  for (size_t i = 0; i < list.size(); ++i) {
    const Favourite& f = list[i];
    const QString which = QObject::tr("Favourite %1").arg(i + 1);
    if (f.volume.trimmed().isEmpty()) return QObject::tr("%1 has no volume path.").arg(which);
    if (f.slot < 0 || f.slot > mount::kMaxSlots)
      return QObject::tr("%1: the slot must be 1..%2 (or 0 for the first free one).").arg(which).arg(mount::kMaxSlots);
    if (!f.mount_point.isEmpty() && QDir::isRelativePath(f.mount_point))
      return QObject::tr("%1: the mount point must be an absolute path.").arg(which);
    if (f.slot && used_slots.contains(f.slot)) return QObject::tr("%1: slot %2 is used twice.").arg(which).arg(f.slot);
    if (!f.mount_point.isEmpty() && points.contains(f.mount_point))
      return QObject::tr("%1: the mount point %2 is used twice.").arg(which, f.mount_point);
    used_slots.insert(f.slot);
    if (!f.mount_point.isEmpty()) points.insert(f.mount_point);
  }
  return {};
}

}  // namespace warpvol::gui
