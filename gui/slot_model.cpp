#include "gui/slot_model.h"

#include <QColor>
#include <QLocale>

#include "core/mount/mounter.h"

namespace warpvol::gui {

SlotModel::SlotModel(Source source, QObject* parent)
    : QAbstractTableModel(parent), source_(source ? std::move(source) : Source(registry_rows)) {}

int SlotModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int SlotModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SlotModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(rows_.size())) return {};
  const SlotRow& r = rows_[size_t(index.row())];
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Slot: return r.slot;
      case Container: return r.container;
      case Size: return format_size(r.size);
      case MountPoint: return r.mount_point;
      case Chain: return r.chain;
      case Engine: return r.engine;
      case State: {
        QStringList s;
        s << r.status;
        if (r.read_only) s << tr("read-only");
        if (r.protect_hidden)
          s << (r.protection_triggered ? tr("PROTECTION TRIGGERED") : tr("hidden protected"));
        return s.join(", ");
      }
    }
  }
  if (role == Qt::ToolTipRole && index.column() == Container) return r.container;
  if (role == Qt::ToolTipRole && index.column() == State && r.protection_triggered)
    return tr("A write into the hidden volume was refused (damage to the hidden volume prevented); every write to "
              "this outer volume fails from then on. %1").arg(r.trigger_detail);
  if (role == Qt::ForegroundRole && index.column() == State && r.protection_triggered) return QColor(Qt::red);
  if (role == Qt::UserRole) return r.slot;
  return {};
}

QVariant SlotModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Slot: return tr("Slot");
    case Container: return tr("Container");
    case Size: return tr("Size");
    case MountPoint: return tr("Mount point");
    case Chain: return tr("Encryption");
    case Engine: return tr("Engine");
    case State: return tr("State");
  }
  return {};
}

const SlotRow* SlotModel::row_at(int row) const {
  return row >= 0 && row < int(rows_.size()) ? &rows_[size_t(row)] : nullptr;
}

void SlotModel::refresh() {
  std::vector<SlotRow> fresh = source_();
  // Reset only when something changed, so selections survive the periodic refresh.
  auto same = [](const SlotRow& a, const SlotRow& b) {
    return a.slot == b.slot && a.container == b.container && a.mount_point == b.mount_point &&
           a.status == b.status && a.protection_triggered == b.protection_triggered && a.mounted_at == b.mounted_at && a.read_only == b.read_only &&
           a.size == b.size;
  };
  if (fresh.size() == rows_.size() && std::equal(fresh.begin(), fresh.end(), rows_.begin(), same)) return;
  beginResetModel();
  rows_ = std::move(fresh);
  endResetModel();
}

std::vector<SlotRow> registry_rows() {
  std::vector<SlotRow> out;
  try {
    mount::Registry reg;
    for (const auto& st : mount::list_mounts(reg)) {
      const auto& r = st.record;
      SlotRow row;
      row.slot = r.slot;
      row.container = QString::fromStdString(r.volume);
      row.size = r.size;
      row.mount_point = QString::fromStdString(r.mount_point.empty() ? r.plaintext_device : r.mount_point);
      row.chain = QString::fromStdString(r.chain);
      row.engine = QString::fromStdString(r.engine);
      row.read_only = st.read_only();
      row.protect_hidden = r.protect_hidden;
      row.protection_triggered = st.daemon.protection_triggered;
      row.trigger_detail = QString::fromStdString(st.daemon.trigger_detail);
      row.mounted_at = r.mounted_at;
      row.status = QString::fromStdString(st.status());
      out.push_back(row);
    }
  } catch (const std::exception&) {
    // No registry yet (nothing was ever mounted) or unreadable: an empty table.
  }
  return out;
}

QString format_size(quint64 bytes) { return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeIecFormat); }

}  // namespace warpvol::gui
