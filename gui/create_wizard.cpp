#include "gui/create_wizard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMetaObject>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QStorageInfo>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <mutex>

#include "core/engine/engine_factory.h"
#include "core/format/header.h"
#include "core/io/file.h"
#include "core/kdf/kdf_stop.h"
#include "core/mount/filesystem.h"
#include "core/mount/mounter.h"
#include "core/util/error.h"
#include "gui/credentials_widget.h"
#include "gui/slot_model.h"

namespace warpvol::gui {

namespace {

QWizardPage* make_page(const QString& title, const QString& sub) {
  auto* p = new QWizardPage;
  p->setTitle(title);
  p->setSubTitle(sub);
  return p;
}

const char* kFilesystems[] = {"fat", "exfat", "ext4", "ntfs", "btrfs", "none"};

}  // namespace

QStringList wizard_filesystems() {
  QStringList out;
  for (const char* fs : kFilesystems) out << fs;
  return out;
}

CreateWizard::CreateWizard(QWidget* parent) : QWizard(parent) {
  setWindowTitle(tr("warpvol Volume Creation Wizard"));
  setOption(QWizard::NoBackButtonOnLastPage);
  error_label = new QLabel;
  error_label->setObjectName("error");
  error_label->setStyleSheet("color: #b00020");

  {  // type
    auto* p = make_page(tr("Volume Type"), tr("A normal volume, or a hidden volume inside an existing one."));
    auto* l = new QVBoxLayout(p);
    auto* normal = new QRadioButton(tr("Standard VeraCrypt volume"), p);
    hidden_radio = new QRadioButton(tr("Hidden VeraCrypt volume (inside an existing outer volume)"), p);
    normal->setChecked(true);
    l->addWidget(normal);
    l->addWidget(hidden_radio);
    setPage(PageType, p);
  }
  {  // location
    auto* p = make_page(tr("Volume Location"), tr("The container file to create (or, for a hidden volume, the outer one)."));
    auto* f = new QFormLayout(p);
    auto* row = new QHBoxLayout;
    path_edit = new QLineEdit(p);
    path_edit->setObjectName("path");
    auto* browse = new QPushButton(tr("Select File..."), p);
    row->addWidget(path_edit);
    row->addWidget(browse);
    f->addRow(tr("Container:"), row);
    connect(browse, &QPushButton::clicked, this, [this] {
      QString f = QFileDialog::getSaveFileName(this, tr("Container"), QDir::homePath(), {}, nullptr,
                                               QFileDialog::DontConfirmOverwrite);
      if (!f.isEmpty()) path_edit->setText(f);
    });
    setPage(PageLocation, p);
  }
  {  // outer volume (hidden volumes only)
    auto* p = make_page(tr("Outer Volume"),
                        tr("The outer volume's password: warpvol opens it and finds where its files end (FAT, exFAT, "
                           "NTFS, ext4), so the hidden volume cannot overwrite them."));
    auto* l = new QVBoxLayout(p);
    outer_creds = new CredentialsWidget(false, false, p);
    outer_creds->setObjectName("outer_credentials");
    l->addWidget(outer_creds);
    trust_size_box = new QCheckBox(tr("Trust the size: do not open the outer volume (its files in the hidden "
                                      "volume's area are destroyed)"),
                                   p);
    trust_size_box->setObjectName("trust_size");
    l->addWidget(trust_size_box);
    connect(trust_size_box, &QCheckBox::toggled, outer_creds, &QWidget::setDisabled);
    setPage(PageOuter, p);
  }
  {  // encryption
    auto* p = make_page(tr("Encryption Options"), tr("Encryption algorithm and hash (PRF) for the header key."));
    auto* f = new QFormLayout(p);
    chain_combo = new QComboBox(p);
    for (const auto& c : all_chains())
      chain_combo->addItem(QString::fromUtf8(c.name.data(), int(c.name.size())), int(c.id));
    f->addRow(tr("Encryption:"), chain_combo);
    prf_combo = new QComboBox(p);
    for (const auto& pr : all_prfs())
      if (pr.veracrypt)
        prf_combo->addItem(QString::fromUtf8(pr.name.data(), int(pr.name.size())), int(pr.id));
    f->addRow(tr("Hash:"), prf_combo);
    auto* bench = new QPushButton(tr("Benchmark"), p);
    bench->setObjectName("benchmark");
    f->addRow(QString(), bench);
    connect(bench, &QPushButton::clicked, this, [this] {
      if (on_benchmark) on_benchmark();
    });
    setPage(PageEncryption, p);
  }
  {  // size
    auto* p = make_page(tr("Volume Size"), tr("At least 292 KiB for a volume, 40 KiB for a hidden volume."));
    auto* f = new QFormLayout(p);
    auto* row = new QHBoxLayout;
    size_spin = new QSpinBox(p);
    size_spin->setRange(1, 1 << 30);
    size_spin->setValue(64);
    size_unit = new QComboBox(p);
    size_unit->addItem("KiB", 1024);
    size_unit->addItem("MiB", 1024 * 1024);
    size_unit->addItem("GiB", 1024 * 1024 * 1024);
    size_unit->setCurrentIndex(1);
    row->addWidget(size_spin);
    row->addWidget(size_unit);
    f->addRow(tr("Size:"), row);
    free_label = new QLabel(p);
    f->addRow(tr("Free space:"), free_label);
    setPage(PageSize, p);
  }
  {  // password
    auto* p = make_page(tr("Volume Password"), tr("Choose a long password; keyfiles and a PIM are optional."));
    auto* l = new QVBoxLayout(p);
    creds = new CredentialsWidget(true, true, p);
    l->addWidget(creds);
    setPage(PagePassword, p);
  }
  {  // filesystem
    auto* p = make_page(tr("Format Options"), tr("A filesystem is made with the system's mkfs tool."));
    auto* f = new QFormLayout(p);
    fs_combo = new QComboBox(p);
    for (const char* fs : kFilesystems) fs_combo->addItem(fs);
    // FAT by default, as VeraCrypt on Linux; making one needs the loop device (root): otherwise none.
    fs_combo->setCurrentText(mount::have_mount_privilege() ? "fat" : "none");
    f->addRow(tr("Filesystem:"), fs_combo);
    quick_box = new QCheckBox(tr("Quick format (do not fill the data area with encrypted data)"), p);
    f->addRow(QString(), quick_box);
    setPage(PageFilesystem, p);
  }
  {  // summary: the last page before anything is written
    auto* p = make_page(tr("Summary"), tr("Nothing has been written yet. Create the volume with these settings?"));
    auto* l = new QVBoxLayout(p);
    summary_label = new QLabel(p);
    summary_label->setObjectName("summary");
    summary_label->setTextFormat(Qt::PlainText);
    summary_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->addWidget(summary_label);
    setPage(PageSummary, p);
  }
  {  // progress
    auto* p = make_page(tr("Creating"), tr("The data area is being filled with encrypted data."));
    auto* l = new QVBoxLayout(p);
    progress_bar = new QProgressBar(p);
    progress_bar->setRange(0, 1000);
    progress_label = new QLabel(p);
    progress_label->setObjectName("progress");
    cancel_button = new QPushButton(tr("Cancel"), p);
    l->addWidget(progress_bar);
    l->addWidget(progress_label);
    l->addWidget(cancel_button);
    connect(cancel_button, &QPushButton::clicked, this, [this] {
      cancel_ = true;
      request_kdf_stop();  // the header KDF and an outer volume's open stop too, not only the fill
    });
    setPage(PageProgress, p);
  }
  {  // done
    auto* p = make_page(tr("Done"), QString());
    auto* l = new QVBoxLayout(p);
    done_label = new QLabel(p);
    done_label->setWordWrap(true);
    l->addWidget(done_label);
    setPage(PageDone, p);
  }
  // The error label follows the current page.
  connect(this, &QWizard::currentIdChanged, this, [this](int id) {
    error_label->clear();
    if (auto* p = page(id); p && p->layout()) p->layout()->addWidget(error_label);
    if (id == PageSize) {
      QString folder = QFileInfo(path_edit->text()).absolutePath();
      QStorageInfo st(folder);
      free_label->setText(st.isValid() ? format_size(quint64(st.bytesAvailable())) : tr("unknown"));
    }
    if (id == PageSummary) {
      summary_label->setText(summary());
      setButtonText(QWizard::NextButton, tr("Create"));
    } else {
      setButtonText(QWizard::NextButton, tr("&Next >"));
    }
    if (id == PageProgress) start_creation();
  });
}

uint64_t CreateWizard::size_bytes() const { return uint64_t(size_spin->value()) * size_unit->currentData().toULongLong(); }

QString CreateWizard::filesystem() const { return fs_combo->currentText(); }

QString CreateWizard::page_error() const { return error_label->text(); }

int CreateWizard::nextId() const {
  switch (currentId()) {
    case PageType: return PageLocation;
    case PageLocation: return hidden_radio->isChecked() ? PageOuter : PageEncryption;
    case PageOuter: return PageEncryption;
    case PageEncryption: return PageSize;
    case PageSize: return PagePassword;
    case PagePassword: return PageFilesystem;
    case PageFilesystem: return PageSummary;
    case PageSummary: return PageProgress;
    case PageProgress: return created_ ? PageDone : -1;
    default: return -1;
  }
}

QString CreateWizard::summary() const {
  const CreateOptions o = options();
  QStringList l;
  const bool hidden = o.type == CreateType::Hidden;
  l << tr("Volume type:\t%1").arg(hidden ? tr("hidden, inside the outer volume") : tr("standard"));
  l << tr("Container:\t%1").arg(path_edit->text());
  if (hidden)
    l << tr("Outer volume:\t%1").arg(o.outer ? tr("opened with its password; its filesystem is analysed and used "
                                                 "space is refused")
                                            : tr("NOT checked (trust the size): outer files in the hidden area are "
                                                 "destroyed"));
  l << tr("Encryption:\t%1").arg(chain_combo->currentText());
  l << tr("Hash:\t%1").arg(prf_combo->currentText());
  l << tr("Size:\t%1 (%2 bytes)%3")
           .arg(format_size(o.size))
           .arg(o.size)
           .arg(hidden ? tr(", at the end of the outer volume") : QString());
  l << tr("Password:\t%1").arg(o.credentials.password.empty() ? tr("none (keyfiles only)") : tr("set"));
  l << tr("Keyfiles:\t%1").arg(o.credentials.keyfiles.size());
  l << tr("PIM:\t%1").arg(o.pim > 0 ? QString::number(o.pim) : tr("default"));
  l << tr("Filesystem:\t%1").arg(filesystem() == "none" ? tr("none (unformatted)") : filesystem().toUpper());
  l << tr("Data area:\t%1").arg(o.quick ? (hidden ? tr("not filled (the outer volume's fill is kept)")
                                                  : tr("quick: not filled"))
                                        : tr("filled with encrypted random data"));
  return l.join("\n");
}

bool CreateWizard::validateCurrentPage() {
  QString e;
  switch (currentId()) {
    case PageLocation: {
      const QString path = path_edit->text();
      if (path.isEmpty()) e = tr("Choose the container file.");
      else if (hidden_radio->isChecked() && !QFileInfo(path).isFile()) e = tr("The outer volume %1 does not exist.").arg(path);
      else if (!hidden_radio->isChecked() && QFileInfo::exists(path)) e = tr("%1 exists already: choose a new file.").arg(path);
      else if (!QFileInfo(QFileInfo(path).absolutePath()).isWritable()) e = tr("The folder is not writable.");
      break;
    }
    case PageSize: {
      const uint64_t s = size_bytes();
      const uint64_t min = hidden_radio->isChecked() ? kMinHiddenVolumeSize : kMinVolumeSize;
      QStorageInfo st(QFileInfo(path_edit->text()).absolutePath());
      if (s < min) e = tr("The size is too small: at least %1 bytes.").arg(min);
      else if (!hidden_radio->isChecked() && st.isValid() && s > uint64_t(st.bytesAvailable()))
        e = tr("Not enough free space: %1 available.").arg(format_size(quint64(st.bytesAvailable())));
      else if (hidden_radio->isChecked() && s + kMinVolumeSize > uint64_t(QFileInfo(path_edit->text()).size()))
        e = tr("The hidden volume does not fit in the outer volume.");
      break;
    }
    case PagePassword: e = creds->validate(); break;
    case PageOuter:
      if (!trust_size_box->isChecked()) {
        if (const QString why = outer_creds->validate(); !why.isEmpty())
          e = tr("Outer volume: %1 (Or choose to trust the size.)").arg(why);
      }
      break;
    case PageFilesystem:
      if (filesystem() != "none") {
        try {
          mount::check_mkfs_available(filesystem().toStdString());
          if (!mount::have_mount_privilege()) e = tr("Making a filesystem needs root (loop device); choose none.");
        } catch (const std::exception& ex) {
          e = QString::fromStdString(ex.what());
        }
      }
      break;
    case PageProgress:
      if (!created_) e = tr("The volume is still being created.");
      break;
    default: break;
  }
  error_label->setText(e);
  return e.isEmpty();
}

CreateOptions CreateWizard::options() const {
  CreateOptions o;
  o.path = path_edit->text().toStdString();
  o.type = hidden_radio->isChecked() ? CreateType::Hidden : CreateType::Normal;
  o.size = size_bytes();
  o.chain = static_cast<ChainId>(chain_combo->currentData().toInt());
  o.prf = static_cast<PrfId>(prf_combo->currentData().toInt());
  o.credentials = creds->credentials();
  o.pim = o.credentials.pim;
  o.quick = quick_box->isChecked() || hidden_radio->isChecked();
  if (hidden_radio->isChecked() && !trust_size_box->isChecked()) {
    OpenOptions outer;
    outer.credentials = outer_creds->credentials();
    o.outer = outer;
  }
  return o;
}

void CreateWizard::start_creation() {
  button(QWizard::NextButton)->setEnabled(false);
  button(QWizard::BackButton)->setEnabled(false);
  cancel_ = false;
  clear_kdf_stop();
  CreateOptions opt = options();
  const QString fs = filesystem();
  struct Shared {
    std::mutex mu;
    ProgressUpdate last;
  };
  auto shared = std::make_shared<Shared>();
  auto* timer = new QTimer(this);
  QElapsedTimer clock;
  clock.start();
  connect(timer, &QTimer::timeout, this, [this, shared, clock] {
    std::lock_guard<std::mutex> lk(shared->mu);
    const auto& u = shared->last;
    if (!u.bytes_total) return;
    progress_bar->setValue(int(1000.0 * double(u.bytes_done) / double(u.bytes_total)));
    // No rate from an interval too short to measure (a hidden volume "finishes" at once).
    const double secs = clock.elapsed() / 1000.0;
    const double speed = secs >= 0.25 ? double(u.bytes_done) / secs : 0;
    const double eta = speed > 0 ? double(u.bytes_total - u.bytes_done) / speed : 0;
    progress_label->setText(tr("%1: %2 of %3, %4/s, ETA %5 s")
                                .arg(QString::fromStdString(u.phase), format_size(u.bytes_done),
                                     format_size(u.bytes_total), speed > 0 ? format_size(quint64(speed)) : QString("-"))
                                .arg(int(eta)));
  });
  timer->start(200);
  opt.fill.progress = [shared](const ProgressUpdate& u) {
    std::lock_guard<std::mutex> lk(shared->mu);
    shared->last = u;
  };
  opt.fill.cancel.requested = [this] { return cancel_.load(); };
  auto runner = run_create;
  watcher_ = new QFutureWatcher<QString>(this);
  connect(watcher_, &QFutureWatcher<QString>::finished, this, [this, timer] {
    timer->stop();
    const QString err = watcher_->result();
    created_ = err.isEmpty();
    button(QWizard::NextButton)->setEnabled(created_);
    cancel_button->setEnabled(false);
    if (created_) {
      progress_bar->setValue(1000);
      done_label->setText(tr("The volume %1 has been created. Filesystem: %2.")
                              .arg(path_edit->text(), filesystem() == "none" ? tr("none (unformatted)")
                                                                             : filesystem().toUpper()));
      next();
    } else {
      progress_label->setText(err);
      error_label->setText(err);
    }
    emit creation_finished(created_, err);
  });
  watcher_->setFuture(QtConcurrent::run([opt, fs, runner]() -> QString {
    try {
      if (runner) {
        runner(opt, fs);
        return {};
      }
      CreateOptions o = opt;
      std::optional<mount::MkfsTool> tool;
      if (fs != "none") tool = mount::check_mkfs_available(fs.toStdString());  // before anything is written
      EngineOptions eo;
      // The fill writes a file from one thread (engine_factory.h).
      eo.one_writer = is_block_device(o.path) ? OneWriterJob::None : OneWriterJob::Fill;
      o.engine = make_engine(eo);
      create_volume(o);
      if (tool) {
        auto file = open_file(o.path, OpenMode::ReadOnly);
        OpenOptions oo;
        oo.credentials = o.credentials;
        oo.prf = o.prf;
        oo.chain = o.chain;
        if (o.type == CreateType::Hidden) oo.slot = SlotKind::Hidden;
        OpenedHeader h = open_header(*file, oo);
        mount::format_filesystem(o.path, h, *tool, EngineChoice::Auto, "", {});
      }
      return {};
    } catch (const std::exception& e) {
      return QString::fromStdString(e.what());
    }
  }));
}

}  // namespace warpvol::gui
