#include "gui/benchmark_dialog.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "core/engine/cpu_engine.h"
#include "core/engine/engine_benchmark.h"
#include "core/engine/engine_factory.h"
#include "core/util/error.h"

namespace warpvol::gui {

BenchmarkDialog::BenchmarkDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Encryption Algorithm Benchmark"));
  resize(900, 600);
  auto* l = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Buffer size:"), this));
  size_ = new QComboBox(this);
  for (int mib : {1, 4, 16, 64, 256}) size_->addItem(QString("%1 MiB").arg(mib), mib);
  size_->setCurrentIndex(2);
  top->addWidget(size_);
  run_ = new QPushButton(tr("Benchmark"), this);
  save_ = new QPushButton(tr("Save as PNG..."), this);
  top->addWidget(run_);
  top->addWidget(save_);
  top->addStretch();
  l->addLayout(top);
  chart_ = new QChartView(this);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(300);
  l->addWidget(chart_, 2);
  table_ = new QTableWidget(0, 3, this);
  table_->setHorizontalHeaderLabels({tr("Encryption"), tr("CPU MB/s"), tr("GPU MB/s")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  l->addWidget(table_, 1);
  status_ = new QLabel(this);
  l->addWidget(status_);
  watcher_ = new QFutureWatcher<std::vector<BenchRow>>(this);
  connect(run_, &QPushButton::clicked, this, &BenchmarkDialog::run);
  connect(save_, &QPushButton::clicked, this, [this] {
    QString f = QFileDialog::getSaveFileName(this, tr("Save chart"), "warpvol-benchmark.png", "PNG (*.png)");
    if (!f.isEmpty()) save_png(f);
  });
  connect(watcher_, &QFutureWatcher<std::vector<BenchRow>>::finished, this, [this] {
    run_->setEnabled(true);
    const auto rows = watcher_->result();
    QString crossover;
    auto c = load_crossover();
    QStringList parts;
    for (const auto& r : rows)
      if (r.gpu_MBps > 0) {
        const size_t x = c[r.chain];
        parts << QString("%1: %2").arg(QString::fromUtf8(chain_info(r.chain).name.data()),
                                       x == SIZE_MAX ? tr("CPU always") : QString("%1 KiB").arg(x / 1024));
      }
    crossover = parts.isEmpty() ? tr("no GPU engine: every request runs on the CPU") : tr("Crossover: ") + parts.join(", ");
    set_results(rows, crossover);
    emit finished_measuring();
  });
}

BenchmarkDialog::~BenchmarkDialog() {
  cancel_ = true;
  watcher_->waitForFinished();
}

size_t BenchmarkDialog::buffer_bytes() const { return size_t(size_->currentData().toInt()) << 20; }

void BenchmarkDialog::run() {
  run_->setEnabled(false);
  status_->setText(tr("Measuring..."));
  cancel_ = false;
  const size_t bytes = buffer_bytes();
  watcher_->setFuture(QtConcurrent::run([this, bytes] {
    std::vector<BenchRow> rows;
    auto cpu = std::make_shared<CpuEngine>(0);
    std::shared_ptr<XtsEngine> gpu;
    try {
      gpu = make_engine(EngineOptions{EngineChoice::Gpu});
    } catch (const std::exception&) {
    }
    auto stop = [this] {
      if (cancel_) throw Error(ErrorKind::Interrupted, "cancelled");
    };
    try {
      for (const auto& c : all_chains()) {
        BenchRow r{c.id};
        auto rc = measure_engine(*cpu, c.id, bytes, 0.2, stop);
        r.cpu_MBps = (rc.encrypt_MBps + rc.decrypt_MBps) / 2;
        if (gpu) {
          auto rg = measure_engine(*gpu, c.id, bytes, 0.2, stop);
          r.gpu_MBps = (rg.encrypt_MBps + rg.decrypt_MBps) / 2;
        }
        rows.push_back(r);
      }
    } catch (const Error&) {
    }
    return rows;
  }));
}

void BenchmarkDialog::set_results(const std::vector<BenchRow>& rows, const QString& crossover) {
  auto* chart = new QChart;
  chart->setTitle(tr("XTS throughput per chain (MB/s, %1 MiB buffers, random data)").arg(buffer_bytes() >> 20));
  auto* cpu = new QBarSet(tr("CPU (all cores)"));
  auto* gpu = new QBarSet(tr("GPU"));
  QStringList names;
  bool any_gpu = false;
  table_->setRowCount(int(rows.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const QString name = QString::fromUtf8(chain_info(r.chain).name.data(), int(chain_info(r.chain).name.size()));
    names << name;
    *cpu << r.cpu_MBps;
    *gpu << r.gpu_MBps;
    any_gpu = any_gpu || r.gpu_MBps > 0;
    table_->setItem(int(i), 0, new QTableWidgetItem(name));
    table_->setItem(int(i), 1, new QTableWidgetItem(QString::number(r.cpu_MBps, 'f', 0)));
    table_->setItem(int(i), 2, new QTableWidgetItem(r.gpu_MBps > 0 ? QString::number(r.gpu_MBps, 'f', 0) : "-"));
  }
  auto* series = new QBarSeries;
  series->append(cpu);
  if (any_gpu) series->append(gpu);
  else delete gpu;
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(names);
  x->setLabelsAngle(-60);
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  auto* y = new QValueAxis;
  y->setTitleText("MB/s");
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  chart_->setChart(chart);
  status_->setText(crossover);
}

bool BenchmarkDialog::save_png(const QString& path) const { return chart_->grab().save(path, "PNG"); }

}  // namespace warpvol::gui
