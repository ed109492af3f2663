// Draws a number cell of the benchmark tables as a horizontal bar behind its text, on a logarithmic (default) or
// linear scale shared by the columns it serves, so one fast row (AES with AES-NI) does not flatten the others.
// The cell's Qt::DisplayRole holds the number (so sorting is numeric); 0 or less draws "-".
#pragma once
#include <QColor>
#include <QStyledItemDelegate>

namespace warpvol::gui {

class BarDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  BarDelegate(QColor colour, QString unit, int decimals, QObject* parent = nullptr);
  // The scale: values up to hi fill 0..100 % of the cell (log: from a decade below lo, so lo keeps a bar).
  void set_range(double lo, double hi, bool log);
  double fraction(double v) const;  // 0..1, for tests
  QString text(double v) const;
  void paint(QPainter* p, const QStyleOptionViewItem& opt, const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& opt, const QModelIndex& index) const override;

 private:
  QColor colour_;
  QString unit_;
  int decimals_;
  double lo_ = 1, hi_ = 10;
  bool log_ = true;
};

}  // namespace warpvol::gui
