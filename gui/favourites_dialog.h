// Organize Favourite Volumes: a table of favourites (label, volume, slot, mount point, read-only) edited in place;
// Add Current adds the selected mounted volume (or the path box) with its slot, mount point and read-only flag;
// Add Volume... picks a file; Remove and Move up/down. OK validates and returns the list; the caller saves it.
#pragma once
#include <QDialog>
#include <functional>

#include "gui/favourites.h"

class QTableWidget;
class QLabel;
class QPushButton;

namespace warpvol::gui {

class FavouritesDialog : public QDialog {
  Q_OBJECT
 public:
  enum Column { Label, Volume, Slot, MountPoint, ReadOnly, ColumnCount };
  // current: what "Add Current" adds (empty volume: the button is disabled).
  FavouritesDialog(std::vector<Favourite> list, Favourite current, QWidget* parent = nullptr);
  std::vector<Favourite> favourites() const;
  QString validate() const;
  void accept() override;
  void add(const Favourite& f);
  void remove_selected();
  void move_selected(int delta);
  QTableWidget* table() const { return table_; }
  QPushButton* add_current_button() const { return add_current_; }
  QLabel* error_label() const { return error_; }
  // Injected by tests: the file chooser behind "Add Volume...".
  std::function<QString()> choose_volume;

 private:
  void set_row(int row, const Favourite& f);
  QTableWidget* table_;
  QPushButton* add_current_;
  QLabel* error_;
};

}  // namespace warpvol::gui
