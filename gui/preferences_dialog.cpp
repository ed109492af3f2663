#include "gui/preferences_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/crypto/chain.h"
#include "gui/create_wizard.h"

namespace warpvol::gui {

PreferencesDialog::PreferencesDialog(const Preferences& p, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("warpvol Preferences"));
  auto* layout = new QVBoxLayout(this);

  auto* mount = new QGroupBox(tr("Mounting"), this);
  auto* mf = new QFormLayout(mount);
  engine_combo = new QComboBox(mount);
  engine_combo->addItem(tr("Automatic (GPU above the measured crossover size, else CPU)"), "auto");
  engine_combo->addItem(tr("CPU"), "cpu");
  engine_combo->addItem(tr("GPU (CUDA)"), "gpu");
  engine_combo->setCurrentIndex(engine_combo->findData(engine_choice_name(p.engine)));
  mf->addRow(tr("Encryption engine:"), engine_combo);
  read_only_box = new QCheckBox(tr("Mount volumes read-only by default"), mount);
  read_only_box->setChecked(p.mount_read_only);
  mf->addRow(QString(), read_only_box);
  auto* base_row = new QHBoxLayout;
  mount_base_edit = new QLineEdit(p.mount_point_base, mount);
  mount_base_edit->setPlaceholderText(tr("default: /media/warpvol (root) or the runtime folder"));
  auto* browse = new QPushButton(tr("Browse..."), mount);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Mount point base"), QDir::homePath());
    if (!d.isEmpty()) mount_base_edit->setText(d);
  });
  base_row->addWidget(mount_base_edit, 1);
  base_row->addWidget(browse);
  mf->addRow(tr("Mount points under:"), base_row);
  history_box = new QCheckBox(tr("Remember the containers I open (history)"), mount);
  history_box->setChecked(p.save_history);
  mf->addRow(QString(), history_box);
  notifications_box = new QCheckBox(tr("Show tray notifications (mount, dismount, auto-dismount)"), mount);
  notifications_box->setChecked(p.notifications);
  mf->addRow(QString(), notifications_box);
  layout->addWidget(mount);

  auto* ad = new QGroupBox(tr("Auto-dismount"), this);
  auto* al = new QVBoxLayout(ad);
  auto* idle_row = new QHBoxLayout;
  inactivity_box = new QCheckBox(tr("Dismount a volume after no I/O on it for"), ad);
  inactivity_box->setChecked(p.auto_dismount.on_inactivity);
  inactivity_minutes = new QSpinBox(ad);
  inactivity_minutes->setRange(1, 24 * 60);
  inactivity_minutes->setSuffix(tr(" minutes"));
  inactivity_minutes->setValue(p.auto_dismount.inactivity_minutes);
  inactivity_minutes->setEnabled(p.auto_dismount.on_inactivity);
  connect(inactivity_box, &QCheckBox::toggled, inactivity_minutes, &QWidget::setEnabled);
  idle_row->addWidget(inactivity_box);
  idle_row->addWidget(inactivity_minutes);
  idle_row->addStretch();
  al->addLayout(idle_row);
  screen_lock_box = new QCheckBox(tr("Dismount all when the screen locks (screen saver)"), ad);
  screen_lock_box->setChecked(p.auto_dismount.on_screen_lock);
  al->addWidget(screen_lock_box);
  suspend_box = new QCheckBox(tr("Dismount all before the computer suspends or hibernates"), ad);
  suspend_box->setChecked(p.auto_dismount.on_suspend);
  al->addWidget(suspend_box);
  quit_box = new QCheckBox(tr("Dismount all when warpvol quits or the session ends (logout)"), ad);
  quit_box->setChecked(p.auto_dismount.on_quit);
  al->addWidget(quit_box);
  force_box = new QCheckBox(tr("Force auto-dismount even when files on the volume are open (lazy unmount)"), ad);
  force_box->setChecked(p.auto_dismount.force);
  al->addWidget(force_box);
  layout->addWidget(ad);

  auto* wiz = new QGroupBox(tr("New volumes (creation wizard defaults)"), this);
  auto* wf = new QFormLayout(wiz);
  fs_combo = new QComboBox(wiz);
  fs_combo->addItem(tr("The wizard's default"), QString());
  for (const QString& fs : wizard_filesystems()) fs_combo->addItem(fs, fs);
  fs_combo->setCurrentIndex(std::max(0, fs_combo->findData(p.wizard_filesystem)));
  wf->addRow(tr("Filesystem:"), fs_combo);
  chain_combo = new QComboBox(wiz);
  chain_combo->addItem(tr("The wizard's default"), QString());
  for (const auto& c : all_chains())
    chain_combo->addItem(QString::fromUtf8(c.name.data(), int(c.name.size())),
                         QString::fromUtf8(c.cli_name.data(), int(c.cli_name.size())));
  chain_combo->setCurrentIndex(std::max(0, chain_combo->findData(p.wizard_chain)));
  wf->addRow(tr("Encryption:"), chain_combo);
  layout->addWidget(wiz);

  error_ = new QLabel(this);
  error_->setObjectName("error");
  error_->setStyleSheet("color: #b00020");
  layout->addWidget(error_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &PreferencesDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

Preferences PreferencesDialog::preferences() const {
  Preferences p;
  p.engine = parse_engine_choice(engine_combo->currentData().toString().toStdString()).value_or(EngineChoice::Auto);
  p.mount_read_only = read_only_box->isChecked();
  p.mount_point_base = mount_base_edit->text().trimmed();
  p.save_history = history_box->isChecked();
  p.notifications = notifications_box->isChecked();
  auto& a = p.auto_dismount;
  a.on_inactivity = inactivity_box->isChecked();
  a.inactivity_minutes = inactivity_minutes->value();
  a.on_screen_lock = screen_lock_box->isChecked();
  a.on_suspend = suspend_box->isChecked();
  a.on_quit = quit_box->isChecked();
  a.force = force_box->isChecked();
  p.wizard_filesystem = fs_combo->currentData().toString();
  p.wizard_chain = chain_combo->currentData().toString();
  return p;
}

QString PreferencesDialog::validate() const {
  const QString base = mount_base_edit->text().trimmed();
  if (!base.isEmpty()) {
    if (QDir::isRelativePath(base)) return tr("The mount point base must be an absolute path.");
    // A missing folder is created at mount time; one that exists must be a folder.
    if (QFileInfo fi(base); fi.exists() && !fi.isDir()) return tr("%1 is not a folder.").arg(base);
  }
  return {};
}

void PreferencesDialog::accept() {
  const QString e = validate();
  error_->setText(e);
  if (e.isEmpty()) QDialog::accept();
}

}  // namespace warpvol::gui
