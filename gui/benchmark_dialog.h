// Benchmark dialog: per chain, CPU and GPU throughput as a bar chart (Qt Charts) and a table; buffer size
// selectable; the measured crossover (smallest size at which the GPU beats all CPU cores); the chart can be saved
// as PNG.
#pragma once
#include <QDialog>
#include <QFutureWatcher>
#include <atomic>
#include <vector>

#include "core/crypto/chain.h"

class QComboBox;
class QTableWidget;
class QLabel;
class QPushButton;
namespace QtCharts {}
class QChartView;

namespace warpvol::gui {

struct BenchRow {
  ChainId chain;
  double cpu_MBps = 0;  // mean of encrypt and decrypt
  double gpu_MBps = 0;  // 0 when there is no GPU
};

class BenchmarkDialog : public QDialog {
  Q_OBJECT
 public:
  explicit BenchmarkDialog(QWidget* parent = nullptr);
  ~BenchmarkDialog() override;
  void run();  // measures on a worker thread, then fills chart and table
  void set_results(const std::vector<BenchRow>& rows, const QString& crossover);
  bool save_png(const QString& path) const;
  size_t buffer_bytes() const;
  QTableWidget* table() const { return table_; }
  QChartView* chart_view() const { return chart_; }

 signals:
  void finished_measuring();

 private:
  QComboBox* size_;
  QTableWidget* table_;
  QChartView* chart_;
  QLabel* status_;
  QPushButton* run_;
  QPushButton* save_;
  QFutureWatcher<std::vector<BenchRow>>* watcher_;
  std::atomic<bool> cancel_{false};
};

}  // namespace warpvol::gui
