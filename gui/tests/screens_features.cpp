// Screenshots of the VeraCrypt-style features under Xvfb (run_screens.sh): the favourites dialog, Preferences, the
// keyfile generator, About, the benchmark window measured on this machine, and the crossover plot from the stored
// H100 calibration (gui/tests/data/h100-crossover.json, the calibration table of gpu/NOTES.md). Each picture is
// checked to be a real rendering (size, many colours), then saved into $WARPVOL_SCREENSHOT_DIR.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "core/engine/engine_factory.h"
#include "gui/about_dialog.h"
#include "gui/benchmark_dialog.h"
#include "gui/crossover_plot.h"
#include "gui/favourites_dialog.h"
#include "gui/keyfile_generator.h"
#include "gui/preferences_dialog.h"

using namespace warpvol;
using namespace warpvol::gui;

namespace {

QString shots() { return qEnvironmentVariable("WARPVOL_SCREENSHOT_DIR", QDir::tempPath()); }

// Grabs a shown widget; a blank or one-colour image (missing fonts, icons or styles) fails.
void shoot(QWidget* w, const QString& name) {
  w->show();
  QVERIFY(QTest::qWaitForWindowExposed(w));
  QTest::qWait(300);
  const QImage img = w->grab().toImage();
  QVERIFY2(img.width() > 200 && img.height() > 100, qPrintable(name));
  QSet<QRgb> colours;
  for (int y = 0; y < img.height(); y += 3)
    for (int x = 0; x < img.width(); x += 3) colours.insert(img.pixel(x, y));
  QVERIFY2(colours.size() > 16, qPrintable(name + ": almost one colour"));
  QDir().mkpath(shots());
  QVERIFY2(img.save(shots() + "/" + name, "PNG"), qPrintable(name));
}

}  // namespace

class FeatureScreens : public QObject {
  Q_OBJECT
 private slots:
  void favourites() {
    FavouritesDialog d({{"/home/alice/work.hc", 1, "/media/work", false, "Work"},
                        {"/home/alice/archive.hc", 2, "", true, "Archive (read-only)"},
                        {"/dev/sdb2", 0, "/media/usb-vault", false, "USB stick"}},
                       Favourite{"/home/alice/taxes.hc", 3, "/media/warpvol/slot3", false});
    d.resize(900, 330);
    shoot(&d, "favourites.png");
  }

  void preferences() {
    Preferences p;
    p.auto_dismount.on_inactivity = true;
    p.auto_dismount.inactivity_minutes = 15;
    p.auto_dismount.on_screen_lock = true;
    p.auto_dismount.on_suspend = true;
    p.wizard_filesystem = "ext4";
    p.wizard_chain = "aes-twofish";
    PreferencesDialog d(p);
    shoot(&d, "preferences.png");
  }

  void keyfile_generator_and_about() {
    KeyfileGeneratorDialog k;
    k.folder_edit->setText("/home/alice/keys");
    k.count_spin->setValue(3);
    k.size_spin->setValue(64);
    shoot(&k, "keyfile-generator.png");
    AboutDialog a;
    shoot(&a, "about.png");
  }

  void benchmark_window_and_crossover_plot() {
    QTemporaryDir cache;
    qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
    QVERIFY(QDir().mkpath(cache.filePath("warpvol")));
    QVERIFY(QFile::copy(WARPVOL_SOURCE_DIR "/gui/tests/data/h100-crossover.json",
                        QString::fromStdString(crossover_path())));
    BenchmarkDialog d;
    d.resize(1000, 640);
    d.show();
    QSignalSpy done(&d, &BenchmarkDialog::finished_measuring);
    d.run();
    QVERIFY(done.wait(300000));
    QCOMPARE(d.table()->rowCount(), 15);
    d.table()->sortItems(BenchmarkDialog::CpuDecrypt, Qt::DescendingOrder);
    shoot(&d, "benchmark-window.png");
    d.tabs()->setCurrentIndex(1);
    shoot(&d, "benchmark-kdf.png");
    d.tabs()->setCurrentIndex(2);
    d.crossover()->show_chain(ChainId::KuznyechikAes);
    shoot(&d, "crossover-plot.png");
    d.crossover()->show_chain(ChainId::Camellia);
    shoot(&d, "crossover-plot-camellia.png");
  }
};

QTEST_MAIN(FeatureScreens)
#include "screens_features.moc"
