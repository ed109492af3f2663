// QTest, offscreen: the slot model (QAbstractItemModelTester), each dialog's validation, the creation wizard's
// page flow and the re-encrypt dialog's resume offer. Dialogs are never exec()ed: no nested modal loops.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

#include "core/create/create.h"
#include "core/engine/cpu_engine.h"
#include "core/volume/volume.h"
#include "gui/create_wizard.h"
#include "gui/credentials_widget.h"
#include "gui/main_window.h"
#include "gui/mount_dialog.h"
#include "gui/reencrypt_dialog.h"
#include "gui/settings.h"
#include "gui/simple_dialogs.h"
#include "gui/slot_model.h"

using namespace warpvol::gui;

// Accepts every dialog without showing it; records which ones were asked for.
class RecordingFactory : public DialogFactory {
 public:
  QStringList shown;
  QStringList messages;
  bool run(QDialog& d) override {
    shown << d.metaObject()->className();
    return false;
  }
  void message(QWidget*, const QString&, const QString& text, bool) override { messages << text; }
  QString choose_volume(QWidget*) override { return "/tmp/chosen.hc"; }
  bool confirm(QWidget*, const QString&, const QString&) override { return false; }
};

class GuiUnits : public QObject {
  Q_OBJECT
 private slots:
  void slot_model_passes_model_tester() {
    std::vector<SlotRow> rows;
    SlotModel model([&] { return rows; });
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.refresh();
    QCOMPARE(model.rowCount(), 0);
    rows.push_back({1, "/data/a.hc", 1 << 20, "/media/warpvol/slot1", "AES", "cpu", false, false, false, "mounted"});
    rows.push_back({3, "/data/b.hc", 2 << 20, "/run/aux/volume", "Serpent", "gpu", true, true, true, "mounted"});
    model.refresh();
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(SlotModel::ColumnCount));
    QCOMPARE(model.data(model.index(1, SlotModel::Slot)).toInt(), 3);
    QVERIFY(model.data(model.index(1, SlotModel::State)).toString().contains("TRIGGERED"));
    QVERIFY(model.data(model.index(1, SlotModel::State)).toString().contains("read-only"));
    rows.erase(rows.begin());
    model.refresh();
    QCOMPARE(model.rowCount(), 1);
  }

  void mount_dialog_validation() {
    MountDialog d("/tmp/x.hc");
    QVERIFY(d.validate().contains("password"));  // empty password, no keyfile
    d.credentials()->set_password("secret");
    QVERIFY(d.validate().isEmpty());
    d.credentials()->add_keyfile("/nonexistent/keyfile");
    QVERIFY(d.validate().contains("Keyfile not found"));
    MountDialog d2("/tmp/x.hc");
    d2.credentials()->set_password("outer");
    d2.protect_box()->setChecked(true);
    QVERIFY(d2.validate().contains("Hidden volume protection"));
    d2.protection_credentials()->set_password("hidden");
    QVERIFY(d2.validate().isEmpty());
    auto p = d2.params();
    QVERIFY(p.protect_hidden.has_value());
    QCOMPARE(p.open.credentials.password.size(), size_t(5));
    d2.accept();  // valid: closes with Accepted
    QCOMPARE(d2.result(), int(QDialog::Accepted));
  }

  void credentials_confirmation_and_strength() {
    CredentialsWidget w(true, true);
    w.set_password("abc", "abd");
    QVERIFY(w.validate().contains("differ"));
    w.set_password("abc");
    QVERIFY(w.validate().isEmpty());
    QVERIFY(CredentialsWidget::strength_hint("abc").startsWith("weak"));
    QCOMPARE(CredentialsWidget::strength_hint("Correct-Horse-Battery-9"), QString("strong"));
    w.set_password(QString(129, 'x'));
    QVERIFY(w.validate().contains("128"));
  }

  void change_dialog_validation() {
    ChangeDialog d("/tmp/x.hc");
    QVERIFY(d.validate().startsWith("Current"));
    d.current()->set_password("old");
    QVERIFY(d.validate().startsWith("New"));
    d.replacement()->set_password("new1", "new2");
    QVERIFY(d.validate().contains("differ"));
    d.replacement()->set_password("new1");
    QVERIFY(d.validate().isEmpty());
  }

  void wizard_page_flow_and_validation() {
    QTemporaryDir dir;
    CreateWizard w;
    w.run_create = [](const warpvol::CreateOptions& o, const QString&) {
      if (o.size < 299008) throw std::runtime_error("too small");
    };
    w.show();
    QCOMPARE(w.currentId(), int(PageType));
    w.next();
    QCOMPARE(w.currentId(), int(PageLocation));
    w.next();  // empty path: refused
    QCOMPARE(w.currentId(), int(PageLocation));
    QVERIFY(w.page_error().contains("Choose"));
    w.path_edit->setText(dir.filePath("new.hc"));
    w.next();
    QCOMPARE(w.currentId(), int(PageEncryption));
    w.chain_combo->setCurrentIndex(w.chain_combo->findText("Serpent"));
    w.next();
    QCOMPARE(w.currentId(), int(PageSize));
    w.size_unit->setCurrentIndex(0);  // KiB
    w.size_spin->setValue(100);       // 100 KiB < 292 KiB
    w.next();
    QCOMPARE(w.currentId(), int(PageSize));
    QVERIFY(w.page_error().contains("too small"));
    w.size_spin->setValue(512);
    w.next();
    QCOMPARE(w.currentId(), int(PagePassword));
    w.creds->set_password("pw-one", "pw-two");
    w.next();
    QCOMPARE(w.currentId(), int(PagePassword));
    QVERIFY(w.page_error().contains("differ"));
    w.creds->set_password("pw-one");
    w.creds->add_keyfile(dir.filePath("missing.key"));
    w.next();
    QVERIFY(w.page_error().contains("Keyfile not found"));
  }

  void wizard_runs_creation_with_the_chosen_options() {
    QTemporaryDir dir;
    CreateWizard w;
    warpvol::CreateOptions seen;
    w.run_create = [&seen](const warpvol::CreateOptions& o, const QString&) { seen = o; };
    QSignalSpy done(&w, &CreateWizard::creation_finished);
    w.show();
    w.next();
    w.path_edit->setText(dir.filePath("new.hc"));
    w.next();
    w.chain_combo->setCurrentIndex(w.chain_combo->findText("AES-Twofish"));
    w.next();
    w.size_spin->setValue(1);  // 1 MiB
    w.next();
    w.creds->set_password("pw");
    w.next();
    QCOMPARE(w.currentId(), int(PageFilesystem));
    w.fs_combo->setCurrentText("none");
    w.next();
    QCOMPARE(w.currentId(), int(PageSummary));  // nothing written before the summary
    QVERIFY(!QFileInfo::exists(dir.filePath("new.hc")));
    QVERIFY(w.summary_label->text().contains("AES-Twofish"));
    w.next();
    QCOMPARE(w.currentId(), int(PageProgress));
    QVERIFY(done.wait(5000));
    QCOMPARE(done.first().at(0).toBool(), true);
    QCOMPARE(w.currentId(), int(PageDone));
    QCOMPARE(seen.chain, warpvol::ChainId::AesTwofish);
    QCOMPARE(seen.size, uint64_t(1) << 20);
    QCOMPARE(seen.path, dir.filePath("new.hc").toStdString());
  }

  void reencrypt_dialog_offers_resume_when_a_journal_exists() {
    ReencryptBackend b;
    b.has_journal = [](const std::string& v) { return v == "/data/half.hc"; };
    std::vector<std::string> ran;
    bool resumed = false;
    b.run = [&](const ReencryptJob& j, const warpvol::ProgressFn& p, const warpvol::CancelToken&) {
      ran = j.volumes;
      resumed = j.resume;
      for (const auto& v : j.volumes) p({v, "reencrypt", 10, 10, true});
    };
    ReencryptDialog d(nullptr, b);
    d.add_volume("/data/fresh.hc");
    QVERIFY(!d.resume_offered());
    d.add_volume("/data/half.hc");
    QVERIFY(d.resume_offered());
    QVERIFY(d.resume_box()->isChecked());
    QVERIFY(d.validate().contains("password"));
    d.credentials()->set_password("pw");
    QVERIFY(d.validate().isEmpty());  // resuming: the journal knows the parts
    d.resume_box()->setChecked(false);
    QVERIFY(d.validate().contains("hidden volume"));
    d.no_hidden_box()->setChecked(true);
    QVERIFY(d.validate().isEmpty());
    d.resume_box()->setChecked(true);
    QSignalSpy finished(&d, &ReencryptDialog::job_finished);
    d.start();
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.first().at(0).toString(), QString());
    QCOMPARE(ran.size(), size_t(2));
    QVERIFY(resumed);
    QTRY_COMPARE(d.progress_table()->item(1, 1)->text(), QString("done"));
  }

  // The dialog with its default backend (core/reencrypt), not an injected one: a real container goes from AES to
  // Serpent through the dialog's worker thread and keeps its data.
  void reencrypt_dialog_runs_the_real_core_reencryption() {
    QTemporaryDir dir;
    const std::string raw = dir.filePath("raw").toStdString(), vol = dir.filePath("real.hc").toStdString();
    std::vector<uint8_t> data(512 * 1024);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 131 + (i >> 9));
    std::ofstream(raw, std::ios::binary).write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
    const std::string pw = "gui reencrypt password";
    warpvol::Credentials cred;
    cred.password = warpvol::LockedBytes(reinterpret_cast<const uint8_t*>(pw.data()), pw.size());
    cred.pim = 1;
    warpvol::CreateOptions c;
    c.path = vol;
    c.import_path = raw;
    c.pim = 1;
    c.credentials = cred;
    c.engine = std::make_shared<warpvol::CpuEngine>(0);
    warpvol::create_volume(c);

    ReencryptDialog d;
    d.add_volume(QString::fromStdString(vol));
    QVERIFY(!d.resume_offered());
    d.credentials()->set_password(QString::fromStdString(pw));
    d.credentials()->set_pim(1);
    d.no_hidden_box()->setChecked(true);
    auto* chain = d.findChild<QComboBox*>("new_chain");
    QVERIFY(chain);
    chain->setCurrentIndex(chain->findData(int(warpvol::ChainId::Serpent)));
    QVERIFY(d.validate().isEmpty());
    QSignalSpy finished(&d, &ReencryptDialog::job_finished);
    d.start();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(0).toString(), QString());

    warpvol::OpenOptions o;
    o.credentials = cred;
    auto v = warpvol::Volume::open(vol, o, std::make_shared<warpvol::CpuEngine>(0), false);
    QCOMPARE(int(v->header().chain), int(warpvol::ChainId::Serpent));
    std::vector<uint8_t> back(data.size());
    v->read(0, back.data(), back.size());
    QVERIFY(back == data);
  }

  void settings_history_and_never_save() {
    QTemporaryDir dir;
    Settings s(dir.path());
    s.add_history("/a.hc");
    s.add_history("/b.hc");
    s.add_history("/a.hc");
    QCOMPARE(s.history(), QStringList({"/a.hc", "/b.hc"}));
    s.set_never_save_history(true);
    QVERIFY(s.history().isEmpty());
    s.add_history("/c.hc");
    QVERIFY(s.history().isEmpty());
  }

  void main_window_uses_injected_dialogs() {
    QTemporaryDir dir;
    auto f = std::make_shared<RecordingFactory>();
    MainWindow w(f, std::make_shared<Settings>(dir.path()), [] { return std::vector<SlotRow>{}; });
    w.select_file();
    QCOMPARE(w.volume_path(), QString("/tmp/chosen.hc"));
    w.dismount_selected();  // nothing selected: a message, no dialog
    QCOMPARE(f->messages.size(), 1);
    w.change_credentials();
    QVERIFY(f->shown.contains("warpvol::gui::ChangeDialog"));
  }
};

QTEST_MAIN(GuiUnits)
#include "test_gui_units.moc"
