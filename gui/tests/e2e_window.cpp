// End-to-end, as root under Xvfb: drive the real main window to create a container (ext4), mount it, see it in the
// slot table, write a file through the mount point, dismount. Saves screenshots of the main window, the mount
// dialog, the wizard's encryption page and the benchmark chart into $WARPVOL_SCREENSHOT_DIR.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QTableWidget>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "gui/benchmark_dialog.h"
#include "gui/create_wizard.h"
#include "gui/credentials_widget.h"
#include "gui/main_window.h"
#include "gui/mount_dialog.h"
#include "gui/settings.h"

using namespace warpvol::gui;

namespace {

QString shots() { return qEnvironmentVariable("WARPVOL_SCREENSHOT_DIR", QDir::tempPath()); }

void shoot(QWidget* w, const QString& name) {
  QDir().mkpath(shots());
  QTest::qWait(200);
  QVERIFY2(w->grab().save(shots() + "/" + name, "PNG"), qPrintable(name));
}

// Fills each dialog the way a user would and accepts it (runs inside MainWindow's call, no exec()).
class DrivingFactory : public DialogFactory {
 public:
  QString container;
  QString password = "e2e-password";
  QString error;
  bool run(QDialog& d) override {
    if (auto* w = qobject_cast<CreateWizard*>(&d)) return drive_wizard(*w);
    if (auto* m = qobject_cast<MountDialog*>(&d)) {
      m->credentials()->set_password(password);
      m->show();
      shoot(m, "mount-dialog.png");
      m->hide();
      return m->validate().isEmpty();
    }
    return false;
  }
  void message(QWidget*, const QString&, const QString& text, bool is_error) override {
    if (is_error) error = text;
  }
  bool confirm(QWidget*, const QString&, const QString&) override { return false; }

 private:
  bool drive_wizard(CreateWizard& w) {
    w.show();
    w.next();
    w.path_edit->setText(container);
    w.next();
    w.chain_combo->setCurrentIndex(w.chain_combo->findText("AES-Twofish"));
    shoot(&w, "wizard-encryption.png");
    w.next();
    w.size_spin->setValue(48);  // MiB
    w.next();
    w.creds->set_password(password);
    w.next();
    w.fs_combo->setCurrentText("ext4");
    w.quick_box->setChecked(true);
    QSignalSpy done(&w, &CreateWizard::creation_finished);
    w.next();
    if (!done.wait(120000)) {
      error = "creation timed out";
      return false;
    }
    if (!done.first().at(0).toBool()) error = done.first().at(1).toString();
    w.hide();
    return error.isEmpty();
  }
};

}  // namespace

class E2E : public QObject {
  Q_OBJECT
 private slots:
  void create_mount_write_dismount() {
    QTemporaryDir dir;
    auto f = std::make_shared<DrivingFactory>();
    f->container = dir.filePath("e2e.hc");
    MainWindow w(f, std::make_shared<Settings>(dir.filePath("config")));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));

    w.create_volume();
    QVERIFY2(f->error.isEmpty(), qPrintable(f->error));
    QVERIFY(QFile::exists(f->container));

    w.set_volume_path(f->container);
    QSignalSpy finished(&w, &MainWindow::operation_finished);
    w.mount_selected();
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.first().at(0).toString().isEmpty(), qPrintable(finished.first().at(0).toString()));
    QTRY_COMPARE_WITH_TIMEOUT(w.model()->rowCount(), 1, 10000);
    const SlotRow* row = w.model()->row_at(0);
    QVERIFY(row);
    QCOMPARE(row->container, QFileInfo(f->container).absoluteFilePath());
    const QString mp = row->mount_point;
    QVERIFY(QDir(mp).exists());
    w.table()->selectRow(0);
    shoot(&w, "main-window.png");

    QFile file(mp + "/hello.txt");
    QVERIFY(file.open(QIODevice::WriteOnly));
    const QByteArray content = QByteArray("written through the warpvol GUI mount\n").repeated(1000);
    QCOMPARE(file.write(content), qint64(content.size()));
    file.close();
    QFile back(mp + "/hello.txt");
    QVERIFY(back.open(QIODevice::ReadOnly));
    QCOMPARE(back.readAll(), content);
    back.close();

    finished.clear();
    w.dismount_selected();
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.first().at(0).toString().isEmpty(), qPrintable(finished.first().at(0).toString()));
    QTRY_COMPARE_WITH_TIMEOUT(w.model()->rowCount(), 0, 10000);
  }

  void benchmark_chart_screenshot() {
    BenchmarkDialog d;
    d.show();
    QSignalSpy done(&d, &BenchmarkDialog::finished_measuring);
    d.run();
    QVERIFY(done.wait(300000));
    QCOMPARE(d.table()->rowCount(), 15);
    shoot(&d, "benchmark-chart.png");
    QVERIFY(d.save_png(shots() + "/benchmark-saved.png"));
  }
};

QTEST_MAIN(E2E)
#include "e2e_window.moc"
