// Benchmark window: per chain, XTS encrypt and decrypt MB/s side by side on the CPU engine (all cores) and, when a
// GPU engine exists, on the GPU, with the faster engine named; key-derivation time per PRF; and the crossover plot
// (MB/s against request size, CPU and GPU). The tables are sortable and draw each figure as a bar on a log scale
// (linear on request), so AES with AES-NI does not flatten the other chains. Chain names are VeraCrypt's full
// cascade names; a tooltip gives the order the ciphers are applied in and the CPU implementation.
#pragma once
#include <QDialog>
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <vector>

#include "gui/benchmark_backend.h"

class QCheckBox;
class QComboBox;
class QTableWidget;
class QTabWidget;
class QLabel;
class QPushButton;

namespace warpvol::gui {

class BarDelegate;
class CrossoverPlot;

class BenchmarkDialog : public QDialog {
  Q_OBJECT
 public:
  enum XtsColumn { Name, CpuEncrypt, CpuDecrypt, GpuEncrypt, GpuDecrypt, Faster, XtsColumnCount };
  enum KdfColumn { Prf, Parameters, Seconds, KdfColumnCount };
  explicit BenchmarkDialog(QWidget* parent = nullptr);
  BenchmarkDialog(QWidget* parent, BenchmarkBackend backend);
  ~BenchmarkDialog() override;
  void run();  // measures on a worker thread (rows appear as they are measured), then emits finished_measuring
  void set_results(const std::vector<BenchRow>& rows);
  void set_kdf_results(const std::vector<KdfTiming>& rows);
  void set_log_scale(bool on);
  bool save_png(const QString& path) const;  // the tab on show
  size_t buffer_bytes() const;
  QTableWidget* table() const { return table_; }
  QTableWidget* kdf_table() const { return kdf_; }
  CrossoverPlot* crossover() const { return crossover_; }
  QTabWidget* tabs() const { return tabs_; }
  QCheckBox* log_box() const { return log_; }
  QCheckBox* kdf_box() const { return kdf_box_; }
  QLabel* status_label() const { return status_; }
  const BarDelegate* xts_bars() const { return xts_bars_; }

 signals:
  void finished_measuring();
  void curve_measured();

 private:
  void add_row(const BenchRow& r);
  void add_kdf(const KdfTiming& t);
  void rescale();
  void measure_curve(ChainId chain);
  BenchmarkBackend backend_;
  QComboBox* size_;
  QCheckBox* log_;
  QCheckBox* kdf_box_;
  QTabWidget* tabs_;
  QTableWidget* table_;
  QTableWidget* kdf_;
  CrossoverPlot* crossover_;
  BarDelegate* xts_bars_;
  BarDelegate* gpu_bars_;
  BarDelegate* kdf_bars_;
  QLabel* status_;
  QPushButton* run_;
  QPushButton* save_;
  QFutureWatcher<QString>* watcher_;
  QFutureWatcher<QString>* curve_watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
};

// "Serpent, then Twofish, then AES" style: the order a chain applies its ciphers when encrypting.
QString chain_order_text(ChainId chain);

}  // namespace warpvol::gui
