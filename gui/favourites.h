// Favourite volumes (VeraCrypt's Favorites): containers with the slot, mount point and read-only flag to mount
// them with. Stored as JSON in favourites.json next to the GUI's settings file (the XDG config folder), written
// atomically so a crash never leaves half a list.
#pragma once
#include <QString>
#include <vector>

namespace warpvol::gui {

// QStrings value-initialised ({}): aggregate initialisers that leave them out stay free of
// -Wmissing-field-initializers.
struct Favourite {
  QString volume{};       // container or device path
  int slot = 0;           // 0: the lowest free slot
  QString mount_point{};  // empty: the default for the slot
  bool read_only = false;
  QString label{};        // shown instead of the path when set
  bool operator==(const Favourite&) const = default;
};

class FavouritesStore {
 public:
  explicit FavouritesStore(QString file) : file_(std::move(file)) {}
  // The store next to a settings file (Settings::file_path()).
  static FavouritesStore beside(const QString& settings_file);
  std::vector<Favourite> load() const;  // empty when missing; a damaged file is an error (never silently lost)
  void save(const std::vector<Favourite>& list) const;  // throws std::runtime_error when it cannot be written
  const QString& file() const { return file_; }

 private:
  QString file_;
};

// Empty when the entry can be saved; else why not (no path, slot out of range, relative mount point, a slot or
// mount point used twice in the list).
QString validate_favourites(const std::vector<Favourite>& list);

}  // namespace warpvol::gui
