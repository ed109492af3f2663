// The crossover plot: decrypt MB/s against request size (64 KiB..64 MiB, both axes logarithmic) for one chain, the
// CPU curve (all cores) and the GPU curve, with the crossover size marked: where --engine auto starts sending
// requests to the GPU. Curves come from the stored calibration (`warpvol benchmark --calibrate`, crossover.json) or
// from a measurement here; without a GPU the CPU curve is drawn alone and the note says what the GPU curve needs.
#pragma once
#include <QWidget>

#include "core/engine/calibration.h"

class QChartView;
class QComboBox;
class QLabel;
class QPushButton;

namespace warpvol::gui {

class CrossoverPlot : public QWidget {
  Q_OBJECT
 public:
  explicit CrossoverPlot(QWidget* parent = nullptr);
  // The curves to offer (chains without a curve are still listed: Measure fills them); note says where they came
  // from and what is missing.
  void set_curves(const CalibrationCurves& curves, const QString& note);
  void merge_curve(ChainId chain, const std::vector<CalibrationPoint>& points, const QString& note);
  void show_chain(ChainId chain);
  ChainId chain() const;
  // What the plot shows now, for tests: series names and point counts.
  QStringList series_summary() const;
  bool save_png(const QString& path) const;
  QComboBox* chain_combo() const { return chain_; }
  QPushButton* measure_button() const { return measure_; }
  QLabel* note_label() const { return note_; }
  QChartView* view() const { return view_; }

 signals:
  void measure_requested(ChainId chain);

 private:
  void redraw();
  CalibrationCurves curves_;
  QComboBox* chain_;
  QPushButton* measure_;
  QLabel* note_;
  QChartView* view_;
};

QString format_request_size(size_t bytes);  // "64 KiB", "4 MiB"

}  // namespace warpvol::gui
