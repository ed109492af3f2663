#include "gui/device_picker.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "gui/slot_model.h"

namespace warpvol::gui {

DevicePickerDialog::DevicePickerDialog(QWidget* parent) : DevicePickerDialog(list_block_devices(), parent) {}

DevicePickerDialog::DevicePickerDialog(std::vector<BlockDevice> devices, QWidget* parent)
    : QDialog(parent), devices_(std::move(devices)) {
  setWindowTitle(tr("Select a Partition or Device"));
  resize(760, 400);
  auto* l = new QVBoxLayout(this);
  tree_ = new QTreeWidget(this);
  tree_->setObjectName("devices");
  tree_->setHeaderLabels({tr("Device"), tr("Size"), tr("Model / backing file"), tr("Mount point")});
  tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  tree_->header()->setSectionResizeMode(2, QHeaderView::Stretch);
  QTreeWidgetItem* disk_item = nullptr;
  for (size_t i = 0; i < devices_.size(); ++i) {
    const BlockDevice& d = devices_[i];
    QStringList cols{d.path, format_size(d.size),
                     d.model + (d.removable ? tr(" (removable)") : QString()) + (d.read_only ? tr(" (read-only)") : QString()),
                     d.mount_point};
    QTreeWidgetItem* it = d.partition && disk_item ? new QTreeWidgetItem(disk_item, cols) : new QTreeWidgetItem(tree_, cols);
    if (!d.partition) disk_item = it;
    it->setData(0, Qt::UserRole, int(i));
  }
  tree_->expandAll();
  l->addWidget(tree_, 1);
  auto* note = new QLabel(tr("A volume on a device replaces what the device holds. Choose a partition that is not "
                             "mounted; mounting a VeraCrypt partition or device needs root or udisks2."),
                          this);
  note->setWordWrap(true);
  l->addWidget(note);
  error_ = new QLabel(this);
  error_->setObjectName("error");
  error_->setStyleSheet("color: #b00020");
  error_->setWordWrap(true);
  l->addWidget(error_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &DevicePickerDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(tree_, &QTreeWidget::itemDoubleClicked, this, &DevicePickerDialog::accept);
  connect(tree_, &QTreeWidget::currentItemChanged, this, [this] { error_->setText(validate()); });
  l->addWidget(buttons);
}

const BlockDevice* DevicePickerDialog::selected() const {
  const QTreeWidgetItem* it = tree_->currentItem();
  if (!it) return nullptr;
  const int i = it->data(0, Qt::UserRole).toInt();
  return i >= 0 && size_t(i) < devices_.size() ? &devices_[size_t(i)] : nullptr;
}

QString DevicePickerDialog::selected_path() const {
  const BlockDevice* d = selected();
  return d ? d->path : QString();
}

QString DevicePickerDialog::validate() const {
  const BlockDevice* d = selected();
  if (!d) return tr("Select a partition or device.");
  if (!d->mount_point.isEmpty())
    return tr("%1 is mounted at %2: it holds a filesystem in use, not a volume.").arg(d->path, d->mount_point);
  if (d->has_partitions) return tr("%1 has partitions: select one of them.").arg(d->path);
  if (!d->held_by.isEmpty()) return tr("%1 is in use by %2.").arg(d->path, d->held_by);
  return {};
}

bool DevicePickerDialog::select(const QString& path) {
  for (QTreeWidgetItemIterator it(tree_); *it; ++it)
    if ((*it)->text(0) == path) {
      tree_->setCurrentItem(*it);
      return true;
    }
  return false;
}

void DevicePickerDialog::accept() {
  const QString e = validate();
  error_->setText(e);
  if (e.isEmpty()) QDialog::accept();
}

}  // namespace warpvol::gui
