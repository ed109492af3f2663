#include "gui/bar_delegate.h"

#include <QApplication>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace warpvol::gui {

BarDelegate::BarDelegate(QColor colour, QString unit, int decimals, QObject* parent)
    : QStyledItemDelegate(parent), colour_(colour), unit_(std::move(unit)), decimals_(decimals) {}

void BarDelegate::set_range(double lo, double hi, bool log) {
  log_ = log;
  if (!(hi > 0)) hi = 1;
  if (!(lo > 0) || lo > hi) lo = hi;
  // Log scale: from a decade below the smallest value (which so keeps a visible bar) to the largest value.
  lo_ = log ? lo / 10 : 0;
  hi_ = hi;
}

double BarDelegate::fraction(double v) const {
  if (!(v > 0)) return 0;
  const double f = log_ ? (std::log10(v) - std::log10(lo_)) / (std::log10(hi_) - std::log10(lo_)) : v / hi_;
  return std::clamp(f, 0.0, 1.0);
}

QString BarDelegate::text(double v) const {
  if (!(v > 0)) return "-";
  return QString("%1 %2").arg(QString::number(v, 'f', decimals_), unit_).trimmed();
}

void BarDelegate::paint(QPainter* p, const QStyleOptionViewItem& opt, const QModelIndex& index) const {
  QStyleOptionViewItem o(opt);
  initStyleOption(&o, index);
  const double v = index.data(Qt::DisplayRole).toDouble();
  o.text.clear();  // background and selection only: the number is drawn over the bar below
  QStyle* style = o.widget ? o.widget->style() : QApplication::style();
  style->drawControl(QStyle::CE_ItemViewItem, &o, p, o.widget);
  p->save();
  const QRect r = opt.rect.adjusted(2, 3, -2, -3);
  const int w = int(std::lround(r.width() * fraction(v)));
  if (w > 0) {
    QColor c = colour_;
    c.setAlpha(opt.state & QStyle::State_Selected ? 200 : 110);
    p->fillRect(QRect(r.left(), r.top(), w, r.height()), c);
  }
  p->setPen(opt.palette.color(QPalette::Text));
  p->drawText(r.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignRight, text(v));
  p->restore();
}

QSize BarDelegate::sizeHint(const QStyleOptionViewItem& opt, const QModelIndex& index) const {
  QSize s = QStyledItemDelegate::sizeHint(opt, index);
  s.setWidth(std::max(s.width(), 150));
  return s;
}

}  // namespace warpvol::gui
