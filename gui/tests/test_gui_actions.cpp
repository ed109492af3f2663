// QTest, offscreen: every action of the main window (buttons and menu entries) runs on a real test container, with
// a dialog factory that fills the dialogs the way a user would. Properties reads a real header; with a mounted row
// selected, Properties, Change and Header Backup act on that row (Properties from the mount record, no password);
// a triggered hidden-volume protection is announced once and shown in full in the State column.
#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QSpinBox>
#include <QHeaderView>
#include <QIcon>
#include <QImageReader>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <fstream>

#include "core/create/create.h"
#include "core/engine/cpu_engine.h"
#include "core/mount/mounter.h"
#include "core/mount/runtime.h"
#include "gui/create_wizard.h"
#include "gui/credentials_widget.h"
#include "gui/main_window.h"
#include "gui/simple_dialogs.h"
#include "gui/slot_model.h"

using namespace warpvol::gui;

namespace {
const char* kPassword = "gui actions password";

// Fills credential prompts with the test password; records every dialog, its title and a Properties table.
class ScriptedFactory : public DialogFactory {
 public:
  QStringList shown, titles, messages;
  std::vector<std::pair<QString, QString>> properties;
  bool run(QDialog& d) override {
    shown << d.metaObject()->className();
    titles << d.windowTitle();
    if (auto* c = qobject_cast<CredentialsDialog*>(&d)) {
      c->credentials()->set_password(kPassword);
      c->credentials()->set_pim(1);
      return true;
    }
    if (auto* p = qobject_cast<PropertiesDialog*>(&d)) {
      properties.clear();
      for (int r = 0; r < p->table()->rowCount(); ++r)
        properties.emplace_back(p->table()->item(r, 0)->text(), p->table()->item(r, 1)->text());
    }
    return false;
  }
  void message(QWidget*, const QString&, const QString& text, bool) override { messages << text; }
  QString choose_volume(QWidget*) override { return volume; }
  bool confirm(QWidget*, const QString&, const QString&) override { return false; }
  QString volume;
  QString property(const QString& key) const {
    for (const auto& [k, v] : properties)
      if (k == key) return v;
    return {};
  }
};

std::string make_container(const QString& dir, const QString& name) {
  const std::string raw = (dir + "/" + name + ".raw").toStdString(), vol = (dir + "/" + name).toStdString();
  std::vector<uint8_t> data(512 * 1024, 0x5a);
  std::ofstream(raw, std::ios::binary).write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  warpvol::Credentials cred;
  cred.password = warpvol::LockedBytes(reinterpret_cast<const uint8_t*>(kPassword), std::strlen(kPassword));
  cred.pim = 1;
  warpvol::CreateOptions c;
  c.path = vol;
  c.import_path = raw;
  c.pim = 1;
  c.credentials = cred;
  c.chain = warpvol::ChainId::Serpent;
  c.engine = std::make_shared<warpvol::CpuEngine>(1);
  warpvol::create_volume(c);
  return vol;
}

void wait_idle(MainWindow& w) { QTRY_VERIFY_WITH_TIMEOUT(!w.busy(), 60000); }
}  // namespace

class GuiActions : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QTimer modal_closer_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    qputenv("WARPVOL_RUNTIME_DIR", (dir_.path() + "/run").toUtf8());
    qputenv("WARPVOL_MEDIA_DIR", (dir_.path() + "/media").toUtf8());
    // A safety net: an action that shows a modal dialog outside the factory must not hang the test.
    connect(&modal_closer_, &QTimer::timeout, [] {
      if (QWidget* m = QApplication::activeModalWidget()) m->close();
    });
    modal_closer_.start(200);
  }

  // The icons are SVG: without Qt's SVG image plugin (libqt6svg6) they render as blank squares.
  void icons_render() {
    QVERIFY2(QImageReader::supportedImageFormats().contains("svg"), "no SVG image plugin (libqt6svg6)");
    const QImage img = QIcon(":/icons/warpvol.svg").pixmap(48, 48).toImage();
    QVERIFY(!img.isNull());
    int painted = 0;
    for (int y = 0; y < img.height(); ++y)
      for (int x = 0; x < img.width(); ++x) painted += qAlpha(img.pixel(x, y)) > 0;
    QVERIFY(painted > 48 * 48 / 8);
  }

  void properties_reads_the_header_without_crashing() {
    const QString vol = QString::fromStdString(make_container(dir_.path(), "props.hc"));
    auto f = std::make_shared<ScriptedFactory>();
    MainWindow w(f, std::make_shared<Settings>(dir_.path() + "/cfg"), [] { return std::vector<SlotRow>{}; });
    w.set_volume_path(vol);
    w.show_properties();
    wait_idle(w);
    QVERIFY2(f->messages.isEmpty(), qPrintable(f->messages.join("; ")));
    QVERIFY(f->shown.contains("warpvol::gui::CredentialsDialog"));
    QVERIFY(f->shown.contains("warpvol::gui::PropertiesDialog"));
    QCOMPARE(f->property("encryption"), QString("Serpent"));
    QVERIFY(f->property("volume_type").contains("normal"));
  }

  // The wizard: FAT by default (when a filesystem can be made here), the outer volume's credentials asked for a
  // hidden volume (trusting the size is an explicit choice), a summary before anything is written, and the outer
  // credentials reach the creation (so the outer filesystem is analysed).
  void wizard_outer_page_summary_and_default_filesystem() {
    const QString outer = QString::fromStdString(make_container(dir_.path(), "outer-for-wizard.hc"));
    CreateWizard w;
    if (warpvol::mount::have_mount_privilege()) QCOMPARE(w.fs_combo->currentText(), QString("fat"));
    warpvol::CreateOptions seen;
    w.run_create = [&seen](const warpvol::CreateOptions& o, const QString&) { seen = o; };
    QSignalSpy done(&w, &CreateWizard::creation_finished);
    w.show();
    w.hidden_radio->setChecked(true);
    w.next();
    w.path_edit->setText(outer);
    w.next();
    QCOMPARE(w.currentId(), int(PageOuter));
    w.next();  // no outer password and size not trusted: refused
    QCOMPARE(w.currentId(), int(PageOuter));
    QVERIFY(w.page_error().contains("trust the size"));
    w.outer_creds->set_password(kPassword);
    w.outer_creds->set_pim(1);
    w.next();
    QCOMPARE(w.currentId(), int(PageEncryption));
    w.next();
    w.size_unit->setCurrentIndex(0);
    w.size_spin->setValue(40);
    w.next();
    w.creds->set_password("a different hidden password");
    w.next();
    QCOMPARE(w.currentId(), int(PageFilesystem));
    w.fs_combo->setCurrentText("none");
    w.next();
    QCOMPARE(w.currentId(), int(PageSummary));
    QVERIFY2(w.summary_label->text().contains("its filesystem is analysed"), qPrintable(w.summary_label->text()));
    for (int i = 0; i < 5; ++i) w.back();
    QCOMPARE(w.currentId(), int(PageOuter));
    w.trust_size_box->setChecked(true);
    for (int i = 0; i < 5; ++i) w.next();
    QCOMPARE(w.currentId(), int(PageSummary));
    QVERIFY(w.summary_label->text().contains("NOT checked"));
    for (int i = 0; i < 5; ++i) w.back();
    w.trust_size_box->setChecked(false);
    for (int i = 0; i < 6; ++i) w.next();
    QCOMPARE(w.currentId(), int(PageProgress));
    QVERIFY(done.wait(5000));
    QVERIFY(seen.outer.has_value());
    QCOMPARE(seen.outer->credentials.password.size(), std::strlen(kPassword));
    QVERIFY(seen.type == warpvol::CreateType::Hidden);
  }

  // Every button and menu entry of the window, one after the other (Quit excepted): none may crash or hang.
  void every_main_window_action_runs() {
    const QString vol = QString::fromStdString(make_container(dir_.path(), "actions.hc"));
    auto f = std::make_shared<ScriptedFactory>();
    f->volume = vol;
    MainWindow w(f, std::make_shared<Settings>(dir_.path() + "/cfg2"), [] { return std::vector<SlotRow>{}; });
    w.set_volume_path(vol);
    int ran = 0;
    for (QAbstractButton* b : w.centralWidget()->findChildren<QAbstractButton*>()) {
      if (!b->isVisible() && !b->isEnabled()) continue;
      b->click();
      wait_idle(w);
      ++ran;
    }
    for (QAction* menu : w.menuBar()->actions()) {
      if (!menu->menu()) continue;
      for (QAction* a : menu->menu()->actions()) {
        if (a->isSeparator() || a->menu() || a->text().remove('&') == "Quit") continue;
        a->trigger();
        wait_idle(w);
        ++ran;
      }
    }
    QVERIFY(ran >= 10);
    QVERIFY(f->shown.contains("warpvol::gui::PropertiesDialog"));
    QVERIFY(f->shown.contains("warpvol::gui::ChangeDialog"));
    QVERIFY(f->shown.contains("warpvol::gui::HeaderBackupDialog"));
    QVERIFY(f->shown.contains("warpvol::gui::MountDialog"));
    QVERIFY(f->shown.contains("warpvol::gui::CreateWizard"));
    QVERIFY(f->shown.contains("warpvol::gui::ReencryptDialog"));
    QVERIFY(f->shown.contains("warpvol::gui::BenchmarkDialog"));
  }

  // A mounted row selected: actions use its container, Properties comes from the mount record without a password,
  // and a triggered protection is announced once, in full.
  void selected_mounted_row_and_triggered_protection() {
    warpvol::mount::Registry reg;
    reg.ensure();
    warpvol::mount::MountRecord rec;
    rec.slot = 7;
    rec.state = "mounted";
    rec.volume = "/data/mounted-one.hc";
    rec.mount_point = "/media/warpvol/slot7";
    rec.filesystem = "vfat";
    rec.chain = "AES";
    rec.size = 3 << 20;
    rec.protect_hidden = true;
    rec.mounted_at = 1234;
    rec.header_info = R"({"format":"VeraCrypt","encryption":"AES","volume_type":"normal"})";
    reg.save(rec);
    auto f = std::make_shared<ScriptedFactory>();
    MainWindow w(f, std::make_shared<Settings>(dir_.path() + "/cfg3"));
    QSignalSpy announced(&w, &MainWindow::protection_triggered);
    w.set_volume_path("/somewhere/else.hc");
    w.refresh();
    QCOMPARE(w.model()->rowCount(), 1);
    QCOMPARE(w.model()->data(w.model()->index(0, SlotModel::Size)).toString(), QString("3.0 MiB"));
    w.table()->selectRow(0);
    QCOMPARE(w.target_volume(), QString("/data/mounted-one.hc"));

    w.show_properties();
    QVERIFY(!f->shown.contains("warpvol::gui::CredentialsDialog"));  // no password asked
    QCOMPARE(f->shown.last(), QString("warpvol::gui::PropertiesDialog"));
    QCOMPARE(f->property("encryption"), QString("AES"));
    QCOMPARE(f->property("mount point"), QString("/media/warpvol/slot7"));

    w.change_credentials();
    QCOMPARE(f->shown.last(), QString("warpvol::gui::ChangeDialog"));
    QVERIFY(f->titles.last().contains("/data/mounted-one.hc"));
    w.header_backup_restore();
    QCOMPARE(f->shown.last(), QString("warpvol::gui::HeaderBackupDialog"));
    QVERIFY(f->titles.last().contains("/data/mounted-one.hc"));

    QCOMPARE(announced.count(), 0);
    QVERIFY(w.protection_banner()->isHidden());
    warpvol::mount::DaemonState st;
    st.protection_triggered = true;
    st.trigger_detail = "write at byte 1048576";
    warpvol::mount::write_daemon_state(reg.state_path(7), st);
    w.refresh();
    QCOMPARE(announced.count(), 1);
    QCOMPARE(announced.first().at(0).toInt(), 7);
    w.refresh();
    QCOMPARE(announced.count(), 1);  // once per mount, not on every refresh
    QVERIFY(!w.protection_banner()->isHidden());
    QVERIFY(w.protection_banner()->text().contains("TRIGGERED"));
    QVERIFY(w.protection_banner()->text().contains("mounted-one.hc"));
    const QString state = w.model()->data(w.model()->index(0, SlotModel::State)).toString();
    QVERIFY2(state.contains("TRIGGERED"), qPrintable(state));
    // Shown in full: the column is as wide as its text.
    const int needed = w.table()->fontMetrics().horizontalAdvance(state);
    w.table()->resizeColumnsToContents();
    QVERIFY(w.table()->horizontalHeader()->sectionSize(SlotModel::State) >= needed);
    reg.remove(7);
  }
};

QTEST_MAIN(GuiActions)
#include "test_gui_actions.moc"
