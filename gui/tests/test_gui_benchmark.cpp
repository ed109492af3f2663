// QTest, offscreen: the benchmark window with an injected backend (instant, deterministic figures) and with the real
// stored-calibration reader: full chain names, encrypt and decrypt side by side, numeric sorting, log-scale bars,
// key-derivation rows, CPU vs GPU columns only with a GPU, and the crossover plot from crossover.json (the H100
// calibration of gpu/NOTES.md) or from a CPU-only measurement.
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include "core/engine/engine_factory.h"
#include "gui/bar_delegate.h"
#include "gui/benchmark_dialog.h"
#include "gui/crossover_plot.h"

using namespace warpvol;
using namespace warpvol::gui;

namespace {

const QString kFixture = QStringLiteral(WARPVOL_SOURCE_DIR "/gui/tests/data/h100-crossover.json");

// AES far faster than the rest, as with AES-NI; the GPU 3x the CPU except for AES.
BenchmarkBackend fake_backend(bool gpu) {
  BenchmarkBackend b;
  b.has_gpu = gpu;
  b.cpu_detail = "2 threads";
  b.gpu_detail = gpu ? "Fake GPU" : "";
  b.gpu_missing_reason = gpu ? "" : "this build has no CUDA engine";
  b.measure_chain = [gpu](ChainId c, size_t, const CancelCheck&) {
    BenchRow r{.chain = c};
    const double base = c == ChainId::Aes ? 12000 : 90 + 10 * int(c);
    r.cpu_encrypt_MBps = base;
    r.cpu_decrypt_MBps = base * 1.1;
    if (gpu) {
      r.gpu_encrypt_MBps = c == ChainId::Aes ? 3000 : base * 3;
      r.gpu_decrypt_MBps = c == ChainId::Aes ? 3100 : base * 3;
    }
    return r;
  };
  b.measure_kdf = [](PrfId p, const CancelCheck&) { return KdfTiming{p, "n iterations", 0.1 + int(p) * 0.2}; };
  b.measure_curve = [gpu](ChainId, const CancelCheck&) {
    std::vector<CalibrationPoint> pts;
    double v = 100;
    for (size_t s : calibration_sizes()) pts.push_back({s, v *= 2, gpu ? v * 1.5 : 0});
    return pts;
  };
  b.measure_cpu_rates = [](ChainId, const CancelCheck&) { return CpuPassRates{1500, 1600, "2 threads"}; };
  b.stored_calibration = [] { return StoredCalibration{}; };
  return b;
}

int row_of(QTableWidget* t, const QString& name) {
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->item(r, 0)->text() == name) return r;
  return -1;
}

}  // namespace

class GuiBenchmark : public QObject {
  Q_OBJECT
 private slots:
  void table_side_by_side_sortable_with_full_names() {
    BenchmarkDialog d(nullptr, fake_backend(true));
    QSignalSpy done(&d, &BenchmarkDialog::finished_measuring);
    d.run();
    QVERIFY(done.wait(10000));
    QTableWidget* t = d.table();
    QCOMPARE(t->rowCount(), 15);
    QCOMPARE(t->item(0, BenchmarkDialog::Name)->text(), QString("AES"));  // fastest first once measured
    QCOMPARE(d.kdf_table()->item(0, BenchmarkDialog::Prf)->text(), QString("HMAC-SHA-512"));  // quickest first
    QVERIFY(row_of(t, "Kuznyechik-Serpent-Camellia") >= 0);
    QVERIFY(row_of(t, "Serpent-Twofish-AES") >= 0);
    QVERIFY(!t->isColumnHidden(BenchmarkDialog::GpuDecrypt));
    const int aes = row_of(t, "AES");
    QCOMPARE(t->item(aes, BenchmarkDialog::CpuEncrypt)->data(Qt::DisplayRole).toDouble(), 12000.0);
    QCOMPARE(t->item(aes, BenchmarkDialog::CpuDecrypt)->data(Qt::DisplayRole).toDouble(), 13200.0);
    QVERIFY(t->item(aes, BenchmarkDialog::Faster)->text().startsWith("CPU"));
    QVERIFY(t->item(row_of(t, "Serpent"), BenchmarkDialog::Faster)->text().startsWith("GPU, 2.9x"));  // 3 / 1.05
    QVERIFY(t->item(row_of(t, "Twofish-Serpent"), BenchmarkDialog::Name)->toolTip().contains("then"));
    // Numeric, not text, order: 13200 sorts above 1xx when descending.
    t->sortItems(BenchmarkDialog::CpuDecrypt, Qt::DescendingOrder);
    QCOMPARE(t->item(0, BenchmarkDialog::Name)->text(), QString("AES"));
    t->sortItems(BenchmarkDialog::CpuDecrypt, Qt::AscendingOrder);
    QCOMPARE(t->item(14, BenchmarkDialog::Name)->text(), QString("AES"));
    QCOMPARE(d.kdf_table()->rowCount(), int(benchmark_prfs().size()));
  }

  void log_scale_keeps_slow_chains_visible() {
    BenchmarkDialog d(nullptr, fake_backend(false));
    QSignalSpy done(&d, &BenchmarkDialog::finished_measuring);
    d.run();
    QVERIFY(done.wait(10000));
    QVERIFY(d.table()->isColumnHidden(BenchmarkDialog::GpuEncrypt));  // no GPU: no GPU columns
    QVERIFY(d.table()->isColumnHidden(BenchmarkDialog::Faster));
    const BarDelegate* bars = d.xts_bars();
    QVERIFY(d.log_box()->isChecked());
    QVERIFY(bars->fraction(110) > 0.3);  // the slowest chain (Serpent here) still draws a third of the cell
    QVERIFY(bars->fraction(13200) > 0.9);
    d.set_log_scale(false);
    QVERIFY(bars->fraction(110) < 0.01);  // what a linear scale does to it
    QCOMPARE(bars->text(1234.4), QString("1234 MB/s"));
    QCOMPARE(bars->text(0), QString("-"));
  }

  void crossover_plot_without_gpu_draws_the_cpu_curve_alone() {
    QTemporaryDir cache;
    qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
    BenchmarkDialog d(nullptr, fake_backend(false));
    CrossoverPlot* plot = d.crossover();
    QVERIFY(plot->note_label()->text().contains("needs a CUDA device"));
    QVERIFY(plot->series_summary().isEmpty());
    QSignalSpy measured(&d, &BenchmarkDialog::curve_measured);
    plot->show_chain(ChainId::Serpent);
    plot->measure_button()->click();
    QVERIFY(measured.wait(10000));
    QTRY_COMPARE(plot->series_summary(), QStringList{"CPU (all cores): 6"});
    QVERIFY(plot->note_label()->text().contains("GPU curve needs a CUDA device"));
    QVERIFY(!QFile::exists(QString::fromStdString(crossover_path())));  // a CPU-only curve is not stored
  }

  void crossover_plot_with_a_gpu_stores_the_measured_curve() {
    BenchmarkBackend b = fake_backend(true);
    StoredCalibration stored;
    b.store_calibration = [&stored](const StoredCalibration& s) { stored = s; };
    BenchmarkDialog d(nullptr, b);
    QSignalSpy measured(&d, &BenchmarkDialog::curve_measured);
    d.crossover()->show_chain(ChainId::Twofish);
    d.crossover()->measure_button()->click();
    QVERIFY(measured.wait(10000));
    QTRY_COMPARE(d.crossover()->series_summary().size(), 3);  // CPU, GPU, crossover marker
    QVERIFY(d.crossover()->series_summary().contains("crossover: GPU from 64 KiB: 2"));
    QCOMPARE(stored.curves.count(ChainId::Twofish), size_t(1));
    QCOMPARE(stored.gpu_detail, std::string("Fake GPU"));
    QCOMPARE(stored.cpu_rates.count(ChainId::Twofish), size_t(1));  // and the CPU's rates for one-writer jobs
    QCOMPARE(stored.cpu_rates[ChainId::Twofish].decrypt_MBps, 1600.0);
  }

  // The real reader over the stored H100 calibration: every chain's crossover recomputed from its curve is the one
  // the CLI's calibration wrote next to it.
  void crossover_plot_reads_the_stored_calibration() {
    QTemporaryDir cache;
    qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
    QVERIFY(QDir().mkpath(cache.filePath("warpvol")));
    QVERIFY(QFile::copy(kFixture, QString::fromStdString(crossover_path())));
    BenchmarkBackend b = fake_backend(false);
    b.stored_calibration = BenchmarkBackend::real().stored_calibration;
    const StoredCalibration s = b.stored_calibration();
    QCOMPARE(s.curves.size(), size_t(15));
    QFile f(kFixture);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto j = nlohmann::json::parse(f.readAll().toStdString());
    for (const auto& [chain, pts] : s.curves) {
      const auto& want = j.at(std::string(chain_info(chain).cli_name));
      QCOMPARE(crossover_from(pts), want.is_null() ? SIZE_MAX : want.get<size_t>());
    }
    BenchmarkDialog d(nullptr, b);
    CrossoverPlot* plot = d.crossover();
    QVERIFY(plot->note_label()->text().contains("stored calibration"));
    QVERIFY(plot->note_label()->text().contains("H100"));
    plot->show_chain(ChainId::Serpent);
    QCOMPARE(plot->series_summary(),
             QStringList({"CPU (all cores): 6", "GPU: 6", "crossover: GPU from 64 KiB: 2"}));
    plot->show_chain(ChainId::Aes);  // the CPU wins everywhere: no marker
    QCOMPARE(plot->series_summary(), QStringList({"CPU (all cores): 6", "GPU: 6"}));
    QCOMPARE(load_crossover()[ChainId::Camellia], size_t(64) << 20);  // --engine auto reads the same file
  }
};

QTEST_MAIN(GuiBenchmark)
#include "test_gui_benchmark.moc"
