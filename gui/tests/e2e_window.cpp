// End-to-end, as root under Xvfb: drive the real main window to create a container (ext4), mount it, see it in the
// slot table, write a file through the mount point, dismount; then add a hidden volume through the wizard (outer
// credentials page), mount the outer volume with hidden-volume protection, trigger it with a write into the hidden
// range, and show the mounted volume's properties. Saves screenshots of the main window, the mount dialog, the
// wizard's encryption and outer-volume pages, the main window with a triggered protection, the properties of a
// mounted volume and the benchmark chart into $WARPVOL_SCREENSHOT_DIR.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QRadioButton>
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
#include "gui/simple_dialogs.h"

#include <fcntl.h>
#include <unistd.h>

#include "core/mount/runtime.h"

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
  QString hidden_password = "e2e-hidden-password";
  bool hidden_mode = false;  // the wizard adds a hidden volume; the mount protects it
  QString error;
  int properties_rows = 0;
  bool run(QDialog& d) override {
    if (auto* w = qobject_cast<CreateWizard*>(&d)) return hidden_mode ? drive_hidden_wizard(*w) : drive_wizard(*w);
    if (auto* m = qobject_cast<MountDialog*>(&d)) {
      m->credentials()->set_password(password);
      if (hidden_mode) {
        m->protect_box()->setChecked(true);
        m->protection_credentials()->set_password(hidden_password);
      }
      m->show();
      if (!hidden_mode) shoot(m, "mount-dialog.png");
      m->hide();
      return m->validate().isEmpty();
    }
    if (auto* p = qobject_cast<PropertiesDialog*>(&d)) {
      properties_rows = p->table()->rowCount();
      p->show();
      shoot(p, "properties-mounted.png");
      p->hide();
      return false;
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
    if (w.currentId() != PageSummary) {
      error = "no summary page before creation: " + w.page_error();
      return false;
    }
    w.next();
    if (!done.wait(120000)) {
      error = "creation timed out";
      return false;
    }
    if (!done.first().at(0).toBool()) error = done.first().at(1).toString();
    w.hide();
    return error.isEmpty();
  }

  // A hidden volume inside the existing container: the outer volume's credentials page, then a small FAT volume.
  bool drive_hidden_wizard(CreateWizard& w) {
    w.show();
    w.hidden_radio->setChecked(true);
    w.next();
    w.path_edit->setText(container);
    w.next();
    if (w.currentId() != PageOuter) {
      error = "no outer-volume page";
      return false;
    }
    w.outer_creds->set_password(password);
    shoot(&w, "wizard-outer-volume.png");
    w.next();
    w.next();
    w.size_spin->setValue(4);  // MiB
    w.next();
    w.creds->set_password(hidden_password);
    w.next();
    w.fs_combo->setCurrentText("fat");
    w.next();
    QSignalSpy done(&w, &CreateWizard::creation_finished);
    w.next();
    if (!done.wait(120000)) {
      error = "hidden creation timed out";
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

    // A hidden volume through the wizard (the outer ext4 is analysed), then the outer volume mounted with
    // protection; a write into the hidden range triggers it.
    f->hidden_mode = true;
    w.create_volume();
    QVERIFY2(f->error.isEmpty(), qPrintable(f->error));
    QSignalSpy announced(&w, &MainWindow::protection_triggered);
    finished.clear();
    w.mount_selected();
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.first().at(0).toString().isEmpty(), qPrintable(finished.first().at(0).toString()));
    QTRY_COMPARE_WITH_TIMEOUT(w.model()->rowCount(), 1, 10000);
    w.table()->selectRow(0);
    // Properties of the mounted volume: from the mount record, no password asked.
    w.show_properties();
    QVERIFY(f->properties_rows > 5);
    auto rec = warpvol::mount::Registry().load(w.model()->row_at(0)->slot);
    QVERIFY(rec && rec->protect_hidden);
    const int fd = ::open(rec->plaintext_device.c_str(), O_WRONLY | O_CLOEXEC);
    QVERIFY(fd >= 0);
    std::vector<char> zeros(4096, 0);
    // The outer data area starts at 131072 in the container; the hidden range is in container bytes.
    const off_t at = off_t(rec->protected_start - 131072) / 4096 * 4096 + 4096;
    QVERIFY(::pwrite(fd, zeros.data(), zeros.size(), at) < 0);  // refused
    ::close(fd);
    w.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(w.model()->row_at(0) && w.model()->row_at(0)->protection_triggered, 5000);
    QCOMPARE(announced.count(), 1);
    w.table()->selectRow(0);
    w.table()->resizeColumnsToContents();
    shoot(&w, "main-window-protection-triggered.png");
    finished.clear();
    w.dismount_selected();
    QVERIFY(finished.wait(60000));
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
