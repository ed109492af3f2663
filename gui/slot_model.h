// The slot table: one row per mounted volume (from the mount registry, so volumes mounted by the CLI show up too).
// refresh() re-reads the registry; the main window calls it when the registry folder changes and on a timer.
#pragma once
#include <QAbstractTableModel>
#include <QString>
#include <functional>
#include <vector>

namespace warpvol::gui {

// QStrings value-initialised ({}): aggregate initialisers that leave them out stay free of
// -Wmissing-field-initializers.
struct SlotRow {
  int slot = 0;
  QString container{};
  quint64 size = 0;
  QString mount_point{};  // or the plaintext device when no filesystem is mounted
  QString chain{};
  QString engine{};
  bool read_only = false;
  bool protect_hidden = false;
  bool protection_triggered = false;
  QString status{};      // "mounted", "FUSE process dead", ...
  QString trigger_detail{};  // which write triggered the protection
  qint64 mounted_at = 0;   // tells two mounts of the same container in the same slot apart
};

class SlotModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Slot, Container, Size, MountPoint, Chain, Engine, State, ColumnCount };
  using Source = std::function<std::vector<SlotRow>()>;
  // source: where rows come from (default: the mount registry). Tests inject their own.
  explicit SlotModel(Source source = {}, QObject* parent = nullptr);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
  const SlotRow* row_at(int row) const;
  const std::vector<SlotRow>& rows() const { return rows_; }

 public slots:
  void refresh();

 private:
  Source source_;
  std::vector<SlotRow> rows_;
};

// Rows from the mount registry (core/mount).
std::vector<SlotRow> registry_rows();
QString format_size(quint64 bytes);

}  // namespace warpvol::gui
