#include "gui/crossover_plot.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace warpvol::gui {

QString format_request_size(size_t bytes) {
  if (bytes >= (size_t(1) << 20) && bytes % (size_t(1) << 20) == 0) return QString("%1 MiB").arg(bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0) return QString("%1 KiB").arg(bytes >> 10);
  return QString("%1 B").arg(bytes);
}

CrossoverPlot::CrossoverPlot(QWidget* parent) : QWidget(parent) {
  auto* l = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Encryption:"), this));
  chain_ = new QComboBox(this);
  chain_->setObjectName("crossover_chain");
  for (const auto& c : all_chains()) chain_->addItem(QString::fromUtf8(c.name.data(), int(c.name.size())), int(c.id));
  top->addWidget(chain_);
  measure_ = new QPushButton(tr("Measure this chain"), this);
  measure_->setObjectName("measure_curve");
  measure_->setToolTip(tr("Decrypt MB/s at 64 KiB to 64 MiB per request (takes a few seconds)"));
  top->addWidget(measure_);
  top->addStretch();
  l->addLayout(top);
  view_ = new QChartView(this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(320);
  l->addWidget(view_, 1);
  note_ = new QLabel(this);
  note_->setObjectName("crossover_note");
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->addWidget(note_);
  connect(chain_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(measure_, &QPushButton::clicked, this, [this] { emit measure_requested(chain()); });
  redraw();
}

ChainId CrossoverPlot::chain() const { return static_cast<ChainId>(chain_->currentData().toInt()); }

void CrossoverPlot::set_curves(const CalibrationCurves& curves, const QString& note) {
  curves_ = curves;
  note_->setText(note);
  // Start on a chain that has a curve, preferring one whose GPU curve crosses the CPU's.
  if (!curves_.count(chain())) {
    for (const auto& [id, pts] : curves_)
      if (crossover_from(pts) != SIZE_MAX) {
        show_chain(id);
        return;
      }
    if (!curves_.empty()) show_chain(curves_.begin()->first);
  }
  redraw();
}

void CrossoverPlot::merge_curve(ChainId chain, const std::vector<CalibrationPoint>& points, const QString& note) {
  curves_[chain] = points;
  note_->setText(note);
  show_chain(chain);
  redraw();
}

void CrossoverPlot::show_chain(ChainId c) {
  if (int i = chain_->findData(int(c)); i >= 0) chain_->setCurrentIndex(i);
}

void CrossoverPlot::redraw() {
  auto* chart = new QChart;
  const ChainId id = chain();
  const QString name = chain_->currentText();
  chart->setTitle(tr("%1: decrypt MB/s per request size").arg(name));
  auto* x = new QLogValueAxis;
  x->setBase(4);
  x->setLabelFormat("%g KiB");
  x->setTitleText(tr("request size"));
  x->setRange(48, 96 * 1024);
  auto* y = new QLogValueAxis;
  y->setBase(10);
  y->setLabelFormat("%g");
  y->setTitleText(tr("MB/s (log scale)"));
  y->setMinorTickCount(8);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  double lo = 1e300, hi = 0;
  auto it = curves_.find(id);
  if (it != curves_.end()) {
    auto* cpu = new QLineSeries;
    cpu->setName(tr("CPU (all cores)"));
    auto* gpu = new QLineSeries;
    gpu->setName(tr("GPU"));
    for (const auto& p : it->second) {
      const double kib = double(p.bytes) / 1024;
      if (p.cpu_MBps > 0) {
        cpu->append(kib, p.cpu_MBps);
        lo = std::min(lo, p.cpu_MBps);
        hi = std::max(hi, p.cpu_MBps);
      }
      if (p.gpu_MBps > 0) {
        gpu->append(kib, p.gpu_MBps);
        lo = std::min(lo, p.gpu_MBps);
        hi = std::max(hi, p.gpu_MBps);
      }
    }
    for (QLineSeries* s : {cpu, gpu}) {
      if (s->count() == 0) {
        delete s;
        continue;
      }
      s->setPointsVisible(true);
      QPen pen = s->pen();
      pen.setWidth(3);
      pen.setColor(s == cpu ? QColor("#1f77b4") : QColor("#2ca02c"));
      s->setPen(pen);
      chart->addSeries(s);
      s->attachAxis(x);
      s->attachAxis(y);
    }
    if (const size_t cross = crossover_from(it->second); cross != SIZE_MAX && hi > 0) {
      auto* line = new QLineSeries;
      line->setName(tr("crossover: GPU from %1").arg(format_request_size(cross)));
      QPen pen(QColor("#d62728"));
      pen.setWidth(2);
      pen.setStyle(Qt::DashLine);
      line->setPen(pen);
      line->append(double(cross) / 1024, lo / 2);
      line->append(double(cross) / 1024, hi * 2);
      chart->addSeries(line);
      line->attachAxis(x);
      line->attachAxis(y);
    } else if (hi > 0 && std::any_of(it->second.begin(), it->second.end(), [](auto& p) { return p.gpu_MBps > 0; })) {
      chart->setTitle(chart->title() + tr(" (the CPU is faster at every size)"));
    }
  }
  if (hi > 0) {
    y->setRange(std::pow(10, std::floor(std::log10(lo))), std::pow(10, std::ceil(std::log10(hi))));
  } else {
    y->setRange(10, 100000);
    chart->setTitle(tr("%1: no curve yet (Measure, or `warpvol benchmark --calibrate`)").arg(name));
  }
  chart->legend()->setAlignment(Qt::AlignBottom);
  QChart* old = view_->chart();
  view_->setChart(chart);
  delete old;
}

QStringList CrossoverPlot::series_summary() const {
  QStringList out;
  for (QAbstractSeries* s : view_->chart()->series())
    if (auto* xy = qobject_cast<QXYSeries*>(s)) out << QString("%1: %2").arg(xy->name()).arg(xy->count());
  return out;
}

bool CrossoverPlot::save_png(const QString& path) const { return view_->grab().save(path, "PNG"); }

}  // namespace warpvol::gui
