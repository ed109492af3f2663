#include "gui/benchmark_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <algorithm>

#include "core/crypto/cipher.h"
#include "core/engine/engine_factory.h"
#include "core/util/error.h"
#include "gui/bar_delegate.h"
#include "gui/crossover_plot.h"

namespace warpvol::gui {

namespace {

QString chain_name(ChainId c) {
  const auto n = chain_info(c).name;
  return QString::fromUtf8(n.data(), int(n.size()));
}

// A cell that holds a number (sorted as a number, drawn by BarDelegate).
QTableWidgetItem* number_item(double v) {
  auto* it = new QTableWidgetItem;
  it->setData(Qt::DisplayRole, v);
  it->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return it;
}

QTableWidgetItem* text_item(const QString& s) {
  auto* it = new QTableWidgetItem(s);
  it->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return it;
}

}  // namespace

QString chain_order_text(ChainId chain) {
  QStringList names;
  for (CipherId c : chain_info(chain).order) {
    const auto n = cipher_name(c);
    names << QString::fromUtf8(n.data(), int(n.size()));
  }
  return names.size() == 1 ? names.first() : QObject::tr("encrypts with %1").arg(names.join(QObject::tr(", then ")));
}

BenchmarkDialog::BenchmarkDialog(QWidget* parent) : BenchmarkDialog(parent, BenchmarkBackend::real()) {}

BenchmarkDialog::BenchmarkDialog(QWidget* parent, BenchmarkBackend backend)
    : QDialog(parent), backend_(std::move(backend)) {
  setWindowTitle(tr("Encryption Algorithm Benchmark"));
  resize(1000, 680);
  auto* l = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Buffer size:"), this));
  size_ = new QComboBox(this);
  for (int mib : {1, 4, 16, 64, 256}) size_->addItem(QString("%1 MiB").arg(mib), mib);
  size_->setCurrentIndex(2);
  top->addWidget(size_);
  kdf_box_ = new QCheckBox(tr("Time key derivation too"), this);
  kdf_box_->setChecked(true);
  top->addWidget(kdf_box_);
  log_ = new QCheckBox(tr("Log scale"), this);
  log_->setChecked(true);
  log_->setToolTip(tr("Bars on a logarithmic scale, so the fastest chain does not flatten the others"));
  top->addWidget(log_);
  run_ = new QPushButton(tr("Benchmark"), this);
  run_->setObjectName("run_benchmark");
  save_ = new QPushButton(tr("Save as PNG..."), this);
  top->addWidget(run_);
  top->addWidget(save_);
  top->addStretch();
  l->addLayout(top);

  tabs_ = new QTabWidget(this);
  table_ = new QTableWidget(0, XtsColumnCount, this);
  table_->setObjectName("xts_table");
  table_->setHorizontalHeaderLabels({tr("Encryption"), tr("Encrypt (CPU)"), tr("Decrypt (CPU)"), tr("Encrypt (GPU)"),
                                     tr("Decrypt (GPU)"), tr("Faster")});
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(Name, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(Faster, QHeaderView::ResizeToContents);
  xts_bars_ = new BarDelegate(QColor("#1f77b4"), "MB/s", 0, this);
  gpu_bars_ = new BarDelegate(QColor("#2ca02c"), "MB/s", 0, this);
  for (int c : {CpuEncrypt, CpuDecrypt}) table_->setItemDelegateForColumn(c, xts_bars_);
  for (int c : {GpuEncrypt, GpuDecrypt}) table_->setItemDelegateForColumn(c, gpu_bars_);
  // Fastest first once measured, as VeraCrypt lists them; a click on a header sorts by that column.
  table_->horizontalHeader()->setSortIndicator(CpuDecrypt, Qt::DescendingOrder);
  table_->setColumnHidden(GpuEncrypt, !backend_.has_gpu);
  table_->setColumnHidden(GpuDecrypt, !backend_.has_gpu);
  table_->setColumnHidden(Faster, !backend_.has_gpu);
  tabs_->addTab(table_, tr("Encryption"));

  kdf_ = new QTableWidget(0, KdfColumnCount, this);
  kdf_->setObjectName("kdf_table");
  kdf_->setHorizontalHeaderLabels({tr("PRF"), tr("Parameters (VeraCrypt defaults)"), tr("Time of one derivation")});
  kdf_->verticalHeader()->hide();
  kdf_->setSelectionBehavior(QAbstractItemView::SelectRows);
  kdf_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  kdf_->horizontalHeader()->setSectionResizeMode(Seconds, QHeaderView::Stretch);
  kdf_bars_ = new BarDelegate(QColor("#ff7f0e"), "s", 3, this);
  kdf_->setItemDelegateForColumn(Seconds, kdf_bars_);
  kdf_->horizontalHeader()->setSortIndicator(Seconds, Qt::AscendingOrder);
  tabs_->addTab(kdf_, tr("Key derivation"));

  crossover_ = new CrossoverPlot(this);
  tabs_->addTab(crossover_, tr("Crossover (CPU vs GPU)"));
  l->addWidget(tabs_, 1);

  status_ = new QLabel(this);
  status_->setObjectName("benchmark_status");
  status_->setWordWrap(true);
  const QString engines = backend_.has_gpu
                              ? tr("CPU: %1. GPU: %2.").arg(backend_.cpu_detail, backend_.gpu_detail)
                              : tr("CPU: %1. No GPU engine: %2.").arg(backend_.cpu_detail, backend_.gpu_missing_reason);
  status_->setText(engines + " " + tr("MB/s = 10^6 bytes per second, on random data."));
  l->addWidget(status_);

  // The stored calibration, if any, is what the crossover plot shows first.
  const QString path = QString::fromStdString(crossover_path());
  const StoredCalibration stored = backend_.stored_calibration ? backend_.stored_calibration() : StoredCalibration{};
  QString note;
  if (!stored.curves.empty()) {
    note = tr("Curves from the stored calibration in %1").arg(path);
    if (!stored.cpu_detail.empty() || !stored.gpu_detail.empty())
      note += tr(" (CPU: %1; GPU: %2)")
                  .arg(QString::fromStdString(stored.cpu_detail), QString::fromStdString(stored.gpu_detail));
    note += ".";
  } else {
    note = tr("No stored calibration in %1.").arg(path);
  }
  if (!backend_.has_gpu)
    note += " " + tr("The GPU curve needs a CUDA device (%1): `warpvol benchmark --calibrate` on a machine with one "
                     "measures both curves and stores them there. \"Measure this chain\" draws this CPU's curve.")
                      .arg(backend_.gpu_missing_reason);
  crossover_->set_curves(stored.curves, note);

  watcher_ = new QFutureWatcher<QString>(this);
  curve_watcher_ = new QFutureWatcher<QString>(this);
  connect(run_, &QPushButton::clicked, this, &BenchmarkDialog::run);
  connect(log_, &QCheckBox::toggled, this, &BenchmarkDialog::set_log_scale);
  connect(save_, &QPushButton::clicked, this, [this] {
    QString f = QFileDialog::getSaveFileName(this, tr("Save as PNG"), "warpvol-benchmark.png", "PNG (*.png)");
    if (!f.isEmpty()) save_png(f);
  });
  connect(crossover_, &CrossoverPlot::measure_requested, this, &BenchmarkDialog::measure_curve);
  connect(watcher_, &QFutureWatcher<QString>::finished, this, [this] {
    run_->setEnabled(true);
    table_->setSortingEnabled(true);
    kdf_->setSortingEnabled(true);
    const QString err = watcher_->result();
    status_->setText(err.isEmpty() ? tr("Done: %1 chains measured with %2 buffers.")
                                         .arg(table_->rowCount())
                                         .arg(size_->currentText())
                                   : err);
    emit finished_measuring();
  });
  connect(curve_watcher_, &QFutureWatcher<QString>::finished, this, [this] {
    crossover_->measure_button()->setEnabled(true);
    if (const QString err = curve_watcher_->result(); !err.isEmpty()) crossover_->note_label()->setText(err);
    emit curve_measured();
  });
}

BenchmarkDialog::~BenchmarkDialog() {
  *cancel_ = true;
  watcher_->waitForFinished();
  curve_watcher_->waitForFinished();
}

size_t BenchmarkDialog::buffer_bytes() const { return size_t(size_->currentData().toInt()) << 20; }

void BenchmarkDialog::run() {
  if (watcher_->isRunning()) return;
  run_->setEnabled(false);
  table_->setSortingEnabled(false);
  kdf_->setSortingEnabled(false);
  table_->setRowCount(0);
  kdf_->setRowCount(0);
  status_->setText(tr("Measuring..."));
  *cancel_ = false;
  const size_t bytes = buffer_bytes();
  const bool with_kdf = kdf_box_->isChecked();
  auto cancel_flag = cancel_;
  const CancelCheck cancel = [cancel_flag] {
    if (*cancel_flag) throw Error(ErrorKind::Interrupted, "cancelled");
  };
  BenchmarkBackend b = backend_;
  watcher_->setFuture(QtConcurrent::run([this, b, bytes, with_kdf, cancel]() -> QString {
    try {
      for (const auto& c : all_chains()) {
        BenchRow r = b.measure_chain(c.id, bytes, cancel);
        QMetaObject::invokeMethod(this, [this, r] { add_row(r); }, Qt::QueuedConnection);
      }
      if (with_kdf)
        for (PrfId p : benchmark_prfs()) {
          KdfTiming t = b.measure_kdf(p, cancel);
          QMetaObject::invokeMethod(this, [this, t] { add_kdf(t); }, Qt::QueuedConnection);
        }
      return {};
    } catch (const std::exception& e) {
      return QString::fromStdString(e.what());
    }
  }));
}

void BenchmarkDialog::add_row(const BenchRow& r) {
  const bool sorting = table_->isSortingEnabled();
  table_->setSortingEnabled(false);
  const int i = table_->rowCount();
  table_->insertRow(i);
  auto* name = text_item(chain_name(r.chain));
  name->setToolTip(chain_order_text(r.chain) +
                   (r.cpu_implementation.isEmpty() ? QString() : tr("\nCPU: %1").arg(r.cpu_implementation)));
  table_->setItem(i, Name, name);
  table_->setItem(i, CpuEncrypt, number_item(r.cpu_encrypt_MBps));
  table_->setItem(i, CpuDecrypt, number_item(r.cpu_decrypt_MBps));
  table_->setItem(i, GpuEncrypt, number_item(r.gpu_encrypt_MBps));
  table_->setItem(i, GpuDecrypt, number_item(r.gpu_decrypt_MBps));
  QString faster;
  const double cpu = (r.cpu_encrypt_MBps + r.cpu_decrypt_MBps) / 2, gpu = (r.gpu_encrypt_MBps + r.gpu_decrypt_MBps) / 2;
  if (gpu > 0 && cpu > 0)
    faster = gpu >= cpu ? tr("GPU, %1x").arg(gpu / cpu, 0, 'f', 1) : tr("CPU, %1x").arg(cpu / gpu, 0, 'f', 1);
  table_->setItem(i, Faster, text_item(faster));
  table_->setSortingEnabled(sorting);
  rescale();
}

void BenchmarkDialog::add_kdf(const KdfTiming& t) {
  const bool sorting = kdf_->isSortingEnabled();
  kdf_->setSortingEnabled(false);
  const int i = kdf_->rowCount();
  kdf_->insertRow(i);
  const auto n = prf_info(t.prf).name;
  const QString name = QString::fromUtf8(n.data(), int(n.size()));
  kdf_->setItem(i, Prf, text_item(t.prf == PrfId::Argon2id ? name : "HMAC-" + name));
  kdf_->setItem(i, Parameters, text_item(QString::fromStdString(t.parameters)));
  kdf_->setItem(i, Seconds, number_item(t.seconds));
  kdf_->setSortingEnabled(sorting);
  rescale();
}

void BenchmarkDialog::set_results(const std::vector<BenchRow>& rows) {
  table_->setRowCount(0);
  for (const auto& r : rows) add_row(r);
  table_->setSortingEnabled(true);
}

void BenchmarkDialog::set_kdf_results(const std::vector<KdfTiming>& rows) {
  kdf_->setRowCount(0);
  for (const auto& t : rows) add_kdf(t);
  kdf_->setSortingEnabled(true);
}

void BenchmarkDialog::set_log_scale(bool on) {
  if (log_->isChecked() != on) log_->setChecked(on);  // comes back here through toggled
  rescale();
}

// One scale for CPU and GPU columns, so their bars compare; the KDF column has its own.
void BenchmarkDialog::rescale() {
  auto range = [](QTableWidget* t, std::initializer_list<int> cols) {
    double lo = 0, hi = 0;
    for (int r = 0; r < t->rowCount(); ++r)
      for (int c : cols)
        if (auto* it = t->item(r, c)) {
          const double v = it->data(Qt::DisplayRole).toDouble();
          if (v <= 0) continue;
          lo = lo > 0 ? std::min(lo, v) : v;
          hi = std::max(hi, v);
        }
    return std::pair{lo, hi};
  };
  const bool log = log_->isChecked();
  const auto [lo, hi] = range(table_, {CpuEncrypt, CpuDecrypt, GpuEncrypt, GpuDecrypt});
  xts_bars_->set_range(lo, hi, log);
  gpu_bars_->set_range(lo, hi, log);
  const auto [klo, khi] = range(kdf_, {Seconds});
  kdf_bars_->set_range(klo, khi, log);
  table_->viewport()->update();
  kdf_->viewport()->update();
}

void BenchmarkDialog::measure_curve(ChainId chain) {
  if (curve_watcher_->isRunning() || !backend_.measure_curve) return;
  crossover_->measure_button()->setEnabled(false);
  crossover_->note_label()->setText(tr("Measuring %1 at 64 KiB..64 MiB per request...").arg(chain_name(chain)));
  auto cancel_flag = cancel_;
  const CancelCheck cancel = [cancel_flag] {
    if (*cancel_flag) throw Error(ErrorKind::Interrupted, "cancelled");
  };
  BenchmarkBackend b = backend_;
  curve_watcher_->setFuture(QtConcurrent::run([this, b, chain, cancel]() -> QString {
    try {
      std::vector<CalibrationPoint> pts = b.measure_curve(chain, cancel);
      QString note = b.has_gpu ? tr("%1 measured now (CPU: %2; GPU: %3) and stored in %4.")
                                     .arg(chain_name(chain), b.cpu_detail, b.gpu_detail,
                                          QString::fromStdString(crossover_path()))
                               : tr("%1 measured now on this CPU (%2). The GPU curve needs a CUDA device (%3); "
                                    "`warpvol benchmark --calibrate` on a machine with one measures both.")
                                     .arg(chain_name(chain), b.cpu_detail, b.gpu_missing_reason);
      // Only a CPU-and-GPU curve is a calibration worth keeping for --engine auto.
      if (b.has_gpu && b.store_calibration) {
        StoredCalibration s;
        s.curves[chain] = pts;
        if (b.measure_cpu_rates) s.cpu_rates[chain] = b.measure_cpu_rates(chain, cancel);
        s.cpu_detail = b.cpu_detail.toStdString();
        s.gpu_detail = b.gpu_detail.toStdString();
        b.store_calibration(s);
      }
      QMetaObject::invokeMethod(this, [this, chain, pts, note] { crossover_->merge_curve(chain, pts, note); },
                                Qt::QueuedConnection);
      return {};
    } catch (const std::exception& e) {
      return QString::fromStdString(e.what());
    }
  }));
}

bool BenchmarkDialog::save_png(const QString& path) const { return tabs_->currentWidget()->grab().save(path, "PNG"); }

}  // namespace warpvol::gui
