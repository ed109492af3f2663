// QTest, offscreen: the features a VeraCrypt user looks for. Preferences (persisted, applied to the Mount dialog and
// the wizard), favourites (store, organise dialog, Mount Favourites through the Mount dialog), keyboard shortcuts,
// the keyfile generator, About. Dialogs are never exec()ed: an injected factory answers them.
#include <sys/stat.h>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "core/create/create.h"
#include "core/engine/cpu_engine.h"
#include "core/io/file.h"
#include "core/util/error.h"
#include "gui/about_dialog.h"
#include "gui/create_wizard.h"
#include "gui/device_picker.h"
#include "gui/credentials_widget.h"
#include "gui/favourites_dialog.h"
#include "gui/keyfile_generator.h"
#include "gui/main_window.h"
#include "gui/mount_dialog.h"
#include "gui/preferences_dialog.h"
#include "gui/settings.h"
#include "gui/simple_dialogs.h"
#include "gui/slot_notifications.h"

using namespace warpvol::gui;

namespace {

// Records every dialog it is asked to run; `answer` decides (and may fill) each one.
class ScriptedFactory : public DialogFactory {
 public:
  QStringList shown;
  QStringList messages;
  std::function<bool(QDialog&)> answer = [](QDialog&) { return false; };
  bool run(QDialog& d) override {
    shown << d.metaObject()->className();
    return answer(d);
  }
  void message(QWidget*, const QString&, const QString& text, bool) override { messages << text; }
  QString choose_volume(QWidget*) override { return {}; }
  bool confirm(QWidget*, const QString&, const QString&) override { return false; }
};

std::vector<SlotRow> no_rows() { return {}; }

}  // namespace

class GuiFeatures : public QObject {
  Q_OBJECT
 private slots:
  void preferences_persist_and_default_sensibly() {
    QTemporaryDir dir;
    Settings s(dir.path());
    const Preferences defaults = Preferences::load(s);
    QCOMPARE(defaults, Preferences{});
    Preferences p;
    p.engine = warpvol::EngineChoice::Cpu;
    p.mount_read_only = true;
    p.mount_point_base = "/mnt/vols";
    p.save_history = false;
    p.auto_dismount = {true, 7, true, true, true, true};
    p.wizard_filesystem = "ext4";
    p.wizard_chain = "serpent-twofish-aes";
    p.notifications = false;
    p.save(s);
    Settings again(dir.path());
    QCOMPARE(Preferences::load(again), p);
    QVERIFY(again.never_save_history());  // the history switch is the main window's one
  }

  void preferences_dialog_round_trip_and_validation() {
    Preferences p;
    p.engine = warpvol::EngineChoice::Gpu;
    p.auto_dismount.on_inactivity = true;
    p.auto_dismount.inactivity_minutes = 12;
    p.wizard_chain = "aes-twofish";
    p.wizard_filesystem = "exfat";
    PreferencesDialog d(p);
    QCOMPARE(d.preferences(), p);
    QVERIFY(d.inactivity_minutes->isEnabled());
    d.inactivity_box->setChecked(false);
    QVERIFY(!d.inactivity_minutes->isEnabled());
    d.suspend_box->setChecked(true);
    d.engine_combo->setCurrentIndex(d.engine_combo->findData("cpu"));
    QCOMPARE(d.preferences().engine, warpvol::EngineChoice::Cpu);
    QVERIFY(d.preferences().auto_dismount.on_suspend);
    d.mount_base_edit->setText("relative/dir");
    QVERIFY(d.validate().contains("absolute"));
    d.accept();
    QVERIFY(d.result() != QDialog::Accepted);
    QTemporaryDir dir;
    QFile file(dir.filePath("plain"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    d.mount_base_edit->setText(file.fileName());
    QVERIFY(d.validate().contains("not a folder"));
    d.mount_base_edit->setText(dir.path());
    QVERIFY(d.validate().isEmpty());
  }

  void preferences_apply_to_mount_and_wizard() {
    Preferences p;
    p.engine = warpvol::EngineChoice::Cpu;
    p.mount_point_base = "/mnt/vols";
    MountParams m;
    m.slot = 5;
    p.apply_to_mount(m);
    QCOMPARE(m.engine, warpvol::EngineChoice::Cpu);
    QCOMPARE(m.mount_point, QString("/mnt/vols/slot5"));
    MountParams named;
    named.mount_point = "/elsewhere";
    p.apply_to_mount(named);
    QCOMPARE(named.mount_point, QString("/elsewhere"));  // the user's own choice wins
    MountParams device_only;
    device_only.no_filesystem = true;
    p.apply_to_mount(device_only);
    QVERIFY(device_only.mount_point.isEmpty());

    p.wizard_filesystem = "exfat";
    p.wizard_chain = "kuznyechik-serpent-camellia";
    CreateWizard w;
    p.apply_to_wizard(w);
    QCOMPARE(w.filesystem(), QString("exfat"));
    QCOMPARE(w.chain_combo->currentText(), QString("Kuznyechik-Serpent-Camellia"));
  }

  void preferences_dialog_saves_through_the_main_window() {
    QTemporaryDir dir;
    auto f = std::make_shared<ScriptedFactory>();
    auto settings = std::make_shared<Settings>(dir.path());
    f->answer = [](QDialog& d) {
      auto* p = qobject_cast<PreferencesDialog*>(&d);
      if (!p) return false;
      p->read_only_box->setChecked(true);
      p->history_box->setChecked(false);
      p->quit_box->setChecked(true);
      return true;
    };
    MainWindow w(f, settings, no_rows);
    w.show_preferences();
    QCOMPARE(f->shown, QStringList{"warpvol::gui::PreferencesDialog"});
    const Preferences saved = Preferences::load(*settings);
    QVERIFY(saved.mount_read_only);
    QVERIFY(saved.auto_dismount.on_quit);
    QVERIFY(!saved.save_history);
    QVERIFY(settings->never_save_history());

    // The Mount dialog then starts read-only.
    bool read_only_seen = false;
    f->answer = [&](QDialog& d) {
      if (auto* m = qobject_cast<MountDialog*>(&d)) read_only_seen = m->params().read_only;
      return false;
    };
    w.set_volume_path("/tmp/some.hc");
    w.mount_selected();
    if (privilege_problem().isEmpty()) QVERIFY(read_only_seen);
  }

  void favourites_store_round_trip_and_damage() {
    QTemporaryDir dir;
    const FavouritesStore store = FavouritesStore::beside(dir.filePath("warpvol-gui.ini"));
    QCOMPARE(store.file(), dir.filePath("favourites.json"));
    QVERIFY(store.load().empty());
    const std::vector<Favourite> list{{"/data/a.hc", 3, "/mnt/a", true, "work"}, {"/dev/sdb2", 0, "", false, ""}};
    store.save(list);
    QCOMPARE(store.load(), list);
    QFile f(store.file());
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("{ not json");
    f.close();
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, store.load());
  }

  void favourites_validation() {
    QVERIFY(validate_favourites({{"/a.hc", 1}, {"/b.hc", 2}}).isEmpty());
    QVERIFY(validate_favourites({{"/a.hc", 1}, {"/b.hc", 1}}).contains("slot 1 is used twice"));
    QVERIFY(validate_favourites({{"/a.hc", 0, "/m"}, {"/b.hc", 0, "/m"}}).contains("used twice"));
    QVERIFY(validate_favourites({{"/a.hc", 0}, {"/b.hc", 0}}).isEmpty());  // two "first free" slots are fine
    QVERIFY(validate_favourites({{"/a.hc", 65}}).contains("slot"));
    QVERIFY(validate_favourites({{"/a.hc", 1, "rel"}}).contains("absolute"));
    QVERIFY(validate_favourites({{"  "}}).contains("no volume"));
  }

  void favourites_dialog_add_edit_remove_move() {
    FavouritesDialog d({{"/data/a.hc", 1}}, Favourite{"/data/mounted.hc", 4, "/mnt/m", true});
    QVERIFY(d.add_current_button()->isEnabled());
    d.add_current_button()->click();
    QCOMPARE(d.table()->rowCount(), 2);
    auto list = d.favourites();
    QCOMPARE(list[1], (Favourite{"/data/mounted.hc", 4, "/mnt/m", true}));
    d.choose_volume = [] { return QString("/data/picked.hc"); };
    d.findChildren<QPushButton*>().at(1)->click();  // Add Volume...
    QCOMPARE(d.favourites().back().volume, QString("/data/picked.hc"));
    d.table()->selectRow(2);
    d.move_selected(-1);
    QCOMPARE(d.favourites()[1].volume, QString("/data/picked.hc"));
    QCOMPARE(d.favourites()[2].volume, QString("/data/mounted.hc"));
    d.table()->item(0, FavouritesDialog::Slot)->setText("x");
    QVERIFY(!d.validate().isEmpty());
    d.accept();
    QVERIFY(d.result() != QDialog::Accepted);
    QVERIFY(!d.error_label()->text().isEmpty());
    d.table()->item(0, FavouritesDialog::Slot)->setText("4");  // clashes with the mounted one's slot 4
    QVERIFY(d.validate().contains("slot 4 is used twice"));
    d.table()->item(0, FavouritesDialog::Slot)->setText("");
    d.table()->item(0, FavouritesDialog::ReadOnly)->setCheckState(Qt::Checked);
    QVERIFY(d.validate().isEmpty());
    QVERIFY(d.favourites()[0].read_only);
    d.table()->selectRow(1);
    d.remove_selected();
    QCOMPARE(d.table()->rowCount(), 2);
    d.accept();
    QCOMPARE(d.result(), int(QDialog::Accepted));
    FavouritesDialog empty({}, Favourite{});
    QVERIFY(!empty.add_current_button()->isEnabled());
  }

  void main_window_saves_favourites_from_the_organise_dialog() {
    QTemporaryDir dir;
    auto f = std::make_shared<ScriptedFactory>();
    auto settings = std::make_shared<Settings>(dir.path());
    std::vector<SlotRow> rows{{2, "/data/open.hc", 1 << 20, dir.path(), "AES", "cpu", true, false, false, "mounted"}};
    MainWindow w(f, settings, [&] { return rows; });
    w.table()->selectRow(0);
    f->answer = [](QDialog& d) {
      auto* fd = qobject_cast<FavouritesDialog*>(&d);
      if (!fd) return false;
      fd->add_current_button()->click();
      return true;
    };
    w.organize_favourites();
    const auto saved = FavouritesStore::beside(settings->file_path()).load();
    QCOMPARE(saved.size(), size_t(1));
    QCOMPARE(saved[0], (Favourite{"/data/open.hc", 2, dir.path(), true}));
    w.add_current_to_favourites();  // the same one again: said, not duplicated
    QCOMPARE(FavouritesStore::beside(settings->file_path()).load().size(), size_t(1));
    QVERIFY(f->messages.last().contains("already"));
  }

  // Mount Favourites runs the Mount dialog for each favourite (prefilled from it), skips what is mounted, reports
  // each failure with its volume, and goes on to the next.
  void mount_favourites_goes_through_the_mount_dialog_for_each() {
    QTemporaryDir dir;
    auto f = std::make_shared<ScriptedFactory>();
    auto settings = std::make_shared<Settings>(dir.path());
    std::vector<SlotRow> rows{{1, "/data/already.hc", 1 << 20, "/mnt/x", "AES", "cpu", false, false, false, "mounted"}};
    FavouritesStore::beside(settings->file_path())
        .save({{dir.filePath("missing1.hc"), 7, dir.filePath("m1"), true},
               {"/data/already.hc", 0},
               {dir.filePath("missing2.hc"), 0, "", false}});
    MainWindow w(f, settings, [&] { return rows; });
    QStringList volumes;
    QList<bool> read_only;
    QStringList points;
    f->answer = [&](QDialog& d) {
      auto* m = qobject_cast<MountDialog*>(&d);
      if (!m) return false;
      m->credentials()->set_password("pw");
      volumes << m->params().volume;
      read_only << m->params().read_only;
      points << m->params().mount_point;
      return true;
    };
    QSignalSpy done(&w, &MainWindow::favourites_finished);
    w.mount_favourites();
    if (const QString why = privilege_problem(); !why.isEmpty()) {
      QVERIFY(f->messages.last().contains(why));
      return;
    }
    QVERIFY(done.wait(20000));
    QCOMPARE(volumes, QStringList({dir.filePath("missing1.hc"), dir.filePath("missing2.hc")}));
    QCOMPARE(read_only, QList<bool>({true, false}));
    QCOMPARE(points.first(), dir.filePath("m1"));
    QCOMPARE(f->messages.size(), 2);  // each missing container, named
    QVERIFY(f->messages[0].startsWith(dir.filePath("missing1.hc") + ":"));
    QVERIFY(f->messages[1].startsWith(dir.filePath("missing2.hc") + ":"));
  }

  void mount_favourites_without_favourites_says_how_to_add_them() {
    QTemporaryDir dir;
    auto f = std::make_shared<ScriptedFactory>();
    MainWindow w(f, std::make_shared<Settings>(dir.path()), no_rows);
    w.mount_favourites();
    QCOMPARE(f->messages.size(), 1);
    QVERIFY(f->messages.first().contains("Organize"));
    QVERIFY(f->shown.isEmpty());
  }

  void shortcuts_reach_their_actions() {
    QTemporaryDir dir;
    auto f = std::make_shared<ScriptedFactory>();
    MainWindow w(f, std::make_shared<Settings>(dir.path()), no_rows);
    const std::pair<const char*, QKeySequence> expected[] = {
        {"action_mount", QKeySequence("Ctrl+M")},          {"action_dismount", QKeySequence("Ctrl+D")},
        {"action_dismount_all", QKeySequence("Ctrl+Shift+D")}, {"action_create", QKeySequence("Ctrl+N")},
        {"action_properties", QKeySequence("Ctrl+I")},     {"action_preferences", QKeySequence("Ctrl+,")},
        {"action_quit", QKeySequence("Ctrl+Q")},           {"action_select_file", QKeySequence("Ctrl+O")},
        {"action_benchmark", QKeySequence("Ctrl+B")},      {"action_keyfile_generator", QKeySequence("Ctrl+K")},
        {"action_mount_favourites", QKeySequence("Ctrl+Shift+M")},
        {"action_organize_favourites", QKeySequence("Ctrl+Shift+F")},
        {"action_documentation", QKeySequence("F1")},      {"action_select_device", QKeySequence("Ctrl+Shift+O")}};
    QSet<QString> seen;
    for (const auto& [name, keys] : expected) {
      auto* a = w.findChild<QAction*>(name);
      QVERIFY2(a, name);
      QCOMPARE(a->shortcut(), keys);
      QVERIFY2(!seen.contains(keys.toString()), "a shortcut is used twice");
      seen.insert(keys.toString());
    }
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTest::keyClick(&w, Qt::Key_Comma, Qt::ControlModifier);
    QTest::keyClick(&w, Qt::Key_K, Qt::ControlModifier);
    QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
    QTest::keyClick(&w, Qt::Key_N, Qt::ControlModifier);
    QCOMPARE(f->shown, QStringList({"warpvol::gui::PreferencesDialog", "warpvol::gui::KeyfileGeneratorDialog",
                                    "warpvol::gui::FavouritesDialog", "warpvol::gui::CreateWizard"}));
    f->messages.clear();
    QTest::keyClick(w.table(), Qt::Key_M, Qt::ControlModifier);  // from the table: Mount without a volume
    QCOMPARE(f->messages.size(), 1);
  }

  void keyfile_generator_writes_random_files_and_never_half_a_batch() {
    QTemporaryDir dir;
    KeyfileBatch b{dir.path(), "key", 3, 100, false};
    QCOMPARE(keyfile_batch_paths(b), QStringList({dir.filePath("key"), dir.filePath("key_1"), dir.filePath("key_2")}));
    const QStringList written = generate_keyfiles(b);
    QCOMPARE(written.size(), 3);
    QSet<QByteArray> contents;
    for (const QString& p : written) {
      QFile f(p);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray c = f.readAll();
      QCOMPARE(c.size(), 100);
      QVERIFY(c != QByteArray(100, '\0'));
      contents.insert(c);
      struct stat st {};
      QCOMPARE(::stat(p.toLocal8Bit().constData(), &st), 0);
      QCOMPARE(int(st.st_mode & 0777), 0600);
    }
    QCOMPARE(contents.size(), 3);
    // One clash (other_2 exists): nothing at all is written.
    QFile clash(dir.filePath("other_2"));
    QVERIFY(clash.open(QIODevice::WriteOnly));
    clash.close();
    KeyfileBatch b2{dir.path(), "other", 3, 64, false};
    QVERIFY_THROWS_EXCEPTION(warpvol::Error, generate_keyfiles(b2));
    QVERIFY(!QFile::exists(dir.filePath("other")));
    QVERIFY(!QFile::exists(dir.filePath("other_1")));
    KeyfileBatch r{dir.path(), "rnd", 4, 0, true};
    for (const QString& p : generate_keyfiles(r)) {
      const qint64 n = QFileInfo(p).size();
      QVERIFY(n >= 64 && n <= (1 << 20));
    }
    QVERIFY_THROWS_EXCEPTION(warpvol::Error, generate_keyfiles({dir.path(), "small", 1, 63, false}));
    QVERIFY_THROWS_EXCEPTION(warpvol::Error, generate_keyfiles({dir.filePath("nope"), "k", 1, 64, false}));

    KeyfileGeneratorDialog d;
    d.folder_edit->setText(dir.path());
    d.name_edit->setText("dlg");
    d.count_spin->setValue(2);
    QVERIFY(d.generate());
    QVERIFY(QFile::exists(dir.filePath("dlg_1")));
    QVERIFY(!d.generate());  // exists now
    QVERIFY(d.status_label->text().contains("exists"));
  }

  void block_devices_from_sysfs() {
    QTemporaryDir dir;
    auto put = [&](const QString& rel, const QByteArray& text) {
      QVERIFY(QDir().mkpath(QFileInfo(dir.filePath(rel)).absolutePath()));
      QFile f(dir.filePath(rel));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(text);
    };
    put("sys/block/sda/size", "2097152\n");  // 1 GiB
    put("sys/block/sda/removable", "1\n");
    put("sys/block/sda/device/vendor", "ACME    \n");
    put("sys/block/sda/device/model", "Vault Stick\n");
    put("sys/block/sda/sda1/partition", "1\n");
    put("sys/block/sda/sda1/size", "1024000\n");
    put("sys/block/sda/sda2/partition", "2\n");
    put("sys/block/sda/sda2/size", "1000000\n");
    put("sys/block/sda/sda2/holders/dm-0", "");
    put("sys/block/sda/queue/size", "7\n");  // not a partition folder
    put("sys/block/loop0/size", "0\n");      // unused: left out
    put("sys/block/loop1/size", "2048\n");
    put("sys/block/loop1/loop/backing_file", "/data/disk.img\n");
    put("mounts", "/dev/sda1 /media/My\\040Stick vfat rw 0 0\nproc /proc proc rw 0 0\n");
    const auto devs = list_block_devices(dir.filePath("sys"), dir.filePath("mounts"));
    QStringList paths;
    for (const auto& d : devs) paths << d.path;
    QCOMPARE(paths, QStringList({"/dev/loop1", "/dev/sda", "/dev/sda1", "/dev/sda2"}));
    QCOMPARE(devs[0].model, QString("/data/disk.img"));
    QCOMPARE(devs[1].model, QString("ACME Vault Stick"));
    QCOMPARE(devs[1].size, quint64(1) << 30);
    QVERIFY(devs[1].removable && devs[1].has_partitions);
    QCOMPARE(devs[2].mount_point, QString("/media/My Stick"));
    QVERIFY(devs[2].partition && devs[2].parent == "sda" && devs[2].removable);
    QCOMPARE(devs[3].held_by, QString("dm-0"));

    DevicePickerDialog d(devs);
    QVERIFY(d.select("/dev/sda"));
    QVERIFY(d.validate().contains("has partitions"));
    QVERIFY(d.select("/dev/sda1"));
    QVERIFY(d.validate().contains("mounted at /media/My Stick"));
    d.accept();
    QVERIFY(d.result() != QDialog::Accepted);
    QVERIFY(d.select("/dev/sda2"));
    QVERIFY(d.validate().contains("in use by dm-0"));
    QVERIFY(d.select("/dev/loop1"));
    QVERIFY(d.validate().isEmpty());
    d.accept();
    QCOMPARE(d.result(), int(QDialog::Accepted));
    QCOMPARE(d.selected_path(), QString("/dev/loop1"));
    QVERIFY(!list_block_devices().empty() || !QFile::exists("/sys/block"));  // this machine's own list reads
  }

  void select_device_fills_the_path_box() {
    QTemporaryDir dir;
    auto f = std::make_shared<ScriptedFactory>();
    MainWindow w(f, std::make_shared<Settings>(dir.path()), no_rows);
    f->answer = [](QDialog& d) {
      auto* p = qobject_cast<DevicePickerDialog*>(&d);
      return p && p->tree()->topLevelItemCount() > 0 && (p->tree()->setCurrentItem(p->tree()->topLevelItem(0)), true);
    };
    w.findChild<QPushButton*>("select_device")->click();  // the button next to Select File, as in VeraCrypt
    QCOMPARE(f->shown, QStringList{"warpvol::gui::DevicePickerDialog"});
    if (!list_block_devices().empty()) QVERIFY(w.volume_path().startsWith("/dev/"));
  }

  void mounts_and_dismounts_are_notified() {
    SlotChangeTracker t;
    QVERIFY(t.update({{1, "/d/a.hc"}}).empty());  // already mounted at start-up: not news
    auto c = t.update({{1, "/d/a.hc"}, {2, "/d/b.hc", 0, "/media/b", "", "", true}});
    QCOMPARE(c.size(), size_t(1));
    QCOMPARE(c[0].title, QString("Volume mounted"));
    QCOMPARE(c[0].text, QString("Slot 2: b.hc at /media/b (read-only)"));
    c = t.update({{2, "/d/b.hc"}});
    QCOMPARE(c.size(), size_t(1));
    QCOMPARE(c[0].text, QString("Slot 1: a.hc"));
    QVERIFY(t.update({{2, "/d/b.hc"}}).empty());

    QTemporaryDir dir;
    std::vector<SlotRow> rows;
    MainWindow w(std::make_shared<ScriptedFactory>(), std::make_shared<Settings>(dir.path()), [&] { return rows; });
    QSignalSpy notes(&w, &MainWindow::notified);
    rows.push_back({4, "/d/cli.hc", 0, "/media/cli"});  // mounted from the CLI
    w.refresh();
    QCOMPARE(notes.count(), 1);
    QCOMPARE(notes[0].at(0).toString(), QString("Volume mounted"));
    rows.clear();
    w.refresh();
    QCOMPARE(notes.count(), 2);
    QCOMPARE(notes[1].at(0).toString(), QString("Volume dismounted"));
  }

  // The backup holds the hidden volume's header when its credentials are given (its slot opens with the hidden
  // password), and random data without them.
  void header_backup_includes_the_hidden_volume_header() {
    QTemporaryDir dir;
    const std::string v = dir.filePath("oh.hc").toStdString();
    auto make = [&](const std::string& pw, uint64_t size, warpvol::ChainId chain, bool hidden) {
      warpvol::CreateOptions o;
      o.path = v;
      o.size = size;
      o.chain = chain;
      o.pim = 1;
      o.credentials.password = warpvol::LockedBytes(reinterpret_cast<const uint8_t*>(pw.data()), pw.size());
      o.credentials.pim = 1;
      o.quick = true;
      o.engine = std::make_shared<warpvol::CpuEngine>(0);
      if (hidden) o.type = warpvol::CreateType::Hidden;
      warpvol::create_volume(o);
    };
    make("outer-pw", 1 << 20, warpvol::ChainId::Aes, false);
    make("hidden-pw", 262144, warpvol::ChainId::Twofish, true);

    // The core restore from the backup with the hidden password: it finds the hidden slot only when it was backed up.
    auto opens_hidden_slot = [&](const QString& backup) {
      const QString copy = backup + ".vol";
      QFile::remove(copy);
      if (!QFile::copy(QString::fromStdString(v), copy)) return false;
      warpvol::RestoreOptions r;
      r.open.credentials.password = warpvol::LockedBytes(reinterpret_cast<const uint8_t*>("hidden-pw"), 9);
      r.open.credentials.pim = 1;
      r.from_file = backup.toStdString();
      try {
        warpvol::restore_headers(copy.toStdString(), r);
        return true;
      } catch (const std::exception&) {
        return false;
      }
    };
    for (const bool with_hidden : {true, false}) {
      const QString backup = dir.filePath(with_hidden ? "both.hdr" : "outer.hdr");
      auto f = std::make_shared<ScriptedFactory>();
      f->answer = [&](QDialog& d) {
        auto* h = qobject_cast<HeaderBackupDialog*>(&d);
        if (!h) return false;
        h->file_edit->setText(backup);
        h->findChild<CredentialsWidget*>()->set_password("outer-pw");
        h->findChild<CredentialsWidget*>()->set_pim(1);
        h->hidden_box->setChecked(with_hidden);
        h->hidden_credentials->set_password("hidden-pw");
        h->hidden_credentials->set_pim(1);
        return h->validate().isEmpty();
      };
      MainWindow w(f, std::make_shared<Settings>(dir.path()), no_rows);
      w.set_volume_path(QString::fromStdString(v));
      QSignalSpy finished(&w, &MainWindow::operation_finished);
      w.header_backup_restore();
      QVERIFY(finished.wait(60000));
      QCOMPARE(finished.first().at(0).toString(), QString());
      QCOMPARE(opens_hidden_slot(backup), with_hidden);
      QVERIFY(f->messages.last().contains(with_hidden ? "hidden volume were backed up" : "headers were backed up"));
    }
    HeaderBackupDialog d("/x.hc");
    d.hidden_box->setChecked(true);
    d.findChild<CredentialsWidget*>()->set_password("outer");
    d.file_edit->setText(dir.filePath("new.hdr"));
    QVERIFY(d.validate().startsWith("Hidden volume:"));  // its password is missing
    d.restore_embedded_radio->setChecked(true);
    QVERIFY(!d.hidden_box->isEnabled());
    QVERIFY(!d.hidden_options());
  }

  void about_names_version_and_documentation() {
    AboutDialog d;
    QVERIFY(d.text().contains("warpvol " + warpvol_version()));
    QVERIFY(!warpvol_version().isEmpty() && warpvol_version() != "unknown");
    QVERIFY(d.text().contains("Licence"));
    QVERIFY(!readme_path().isEmpty());  // the source tree's README in a build tree
    // The icon is compiled into the static GUI library and reaches the programs that link it.
    QVERIFY(QFile::exists(":/icons/warpvol.svg"));
    QVERIFY(!QIcon(":/icons/warpvol.svg").pixmap(32, 32).isNull());
  }
};

QTEST_MAIN(GuiFeatures)
#include "test_gui_features.moc"
