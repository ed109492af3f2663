// Select Device: disks and their partitions (gui/block_devices.h) in a tree with size, model and mount point. A
// device that is mounted, or a disk that has partitions, cannot be chosen (its filesystem or partition table would
// be destroyed or mistaken for a volume); the dialog says why instead.
#pragma once
#include <QDialog>

#include "gui/block_devices.h"

class QLabel;
class QTreeWidget;

namespace warpvol::gui {

class DevicePickerDialog : public QDialog {
  Q_OBJECT
 public:
  explicit DevicePickerDialog(std::vector<BlockDevice> devices, QWidget* parent = nullptr);
  DevicePickerDialog(QWidget* parent = nullptr);  // this system's devices
  QString selected_path() const;
  // Why the selection cannot be used; empty when it can.
  QString validate() const;
  bool select(const QString& path);  // for tests
  void accept() override;
  QTreeWidget* tree() const { return tree_; }

 private:
  const BlockDevice* selected() const;
  std::vector<BlockDevice> devices_;
  QTreeWidget* tree_;
  QLabel* error_;
};

}  // namespace warpvol::gui
