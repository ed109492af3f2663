#include "gui/reencrypt_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMetaObject>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "core/crypto/chain.h"
#include "core/kdf/prf.h"
#include "gui/credentials_widget.h"
#include "gui/slot_model.h"

namespace warpvol::gui {

ReencryptDialog::ReencryptDialog(QWidget* parent, ReencryptBackend backend)
    : QDialog(parent), backend_(std::move(backend)) {
  setWindowTitle(tr("Re-encrypt Volumes"));
  resize(760, 620);
  auto* l = new QVBoxLayout(this);
  l->addWidget(new QLabel(tr("Containers (new master keys for each; the data is re-encrypted in place):"), this));
  list_ = new QListWidget(this);
  list_->setMaximumHeight(110);
  l->addWidget(list_);
  auto* row = new QHBoxLayout;
  auto* add = new QPushButton(tr("Add..."), this);
  auto* remove = new QPushButton(tr("Remove"), this);
  row->addWidget(add);
  row->addWidget(remove);
  row->addStretch();
  l->addLayout(row);
  creds_ = new CredentialsWidget(false, false, this);
  l->addWidget(creds_);
  auto* f = new QFormLayout;
  chain_ = new QComboBox(this);
  chain_->setObjectName("new_chain");
  chain_->addItem(tr("Unchanged"), -1);
  for (const auto& c : all_chains()) chain_->addItem(QString::fromUtf8(c.name.data(), int(c.name.size())), int(c.id));
  f->addRow(tr("New encryption:"), chain_);
  prf_ = new QComboBox(this);
  prf_->addItem(tr("Unchanged"), -1);
  for (const auto& p : all_prfs())
    if (p.veracrypt) prf_->addItem(QString::fromUtf8(p.name.data(), int(p.name.size())), int(p.id));
  f->addRow(tr("New hash:"), prf_);
  no_hidden_ = new QCheckBox(tr("These containers hold no hidden volume"), this);
  no_hidden_->setObjectName("no_hidden");
  f->addRow(QString(), no_hidden_);
  with_hidden_ = new QCheckBox(tr("Re-encrypt the hidden volume too (its credentials below)"), this);
  f->addRow(QString(), with_hidden_);
  hidden_creds_ = new CredentialsWidget(false, false, this);
  hidden_creds_->setEnabled(false);
  f->addRow(tr("Hidden volume:"), hidden_creds_);
  connect(with_hidden_, &QCheckBox::toggled, hidden_creds_, &QWidget::setEnabled);
  connect(with_hidden_, &QCheckBox::toggled, no_hidden_, [this](bool on) { no_hidden_->setEnabled(!on); });
  resume_ = new QCheckBox(tr("Resume the interrupted re-encryption"), this);
  resume_->setObjectName("resume");
  resume_->setVisible(false);
  f->addRow(QString(), resume_);
  l->addLayout(f);
  table_ = new QTableWidget(0, 2, this);
  table_->setHorizontalHeaderLabels({tr("Container"), tr("Progress")});
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  l->addWidget(table_, 1);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  l->addWidget(status_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  start_ = buttons->addButton(tr("Start"), QDialogButtonBox::ActionRole);
  l->addWidget(buttons);
  watcher_ = new QFutureWatcher<QString>(this);

  connect(add, &QPushButton::clicked, this, [this] {
    for (const QString& f : QFileDialog::getOpenFileNames(this, tr("Containers"))) add_volume(f);
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    qDeleteAll(list_->selectedItems());
    update_resume_offer();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, [this] {
    cancel_ = true;  // stops at the next safe point; the job can be resumed later
    if (!watcher_->isRunning()) reject();
  });
  connect(start_, &QPushButton::clicked, this, [this] {
    const QString e = validate();
    status_->setText(e);
    if (e.isEmpty()) start();
  });
  connect(watcher_, &QFutureWatcher<QString>::finished, this, [this] {
    const QString err = watcher_->result();
    start_->setEnabled(true);
    status_->setText(err.isEmpty() ? tr("Done: every container was re-encrypted.") : err);
    update_resume_offer();
    emit job_finished(err);
  });
}

ReencryptDialog::~ReencryptDialog() {
  cancel_ = true;
  watcher_->waitForFinished();
}

void ReencryptDialog::add_volume(const QString& path) {
  if (path.isEmpty() || !list_->findItems(path, Qt::MatchExactly).isEmpty()) return;
  list_->addItem(path);
  update_resume_offer();
}

QStringList ReencryptDialog::volumes() const {
  QStringList out;
  for (int i = 0; i < list_->count(); ++i) out << list_->item(i)->text();
  return out;
}

void ReencryptDialog::update_resume_offer() {
  bool any = false;
  if (backend_.has_journal)
    for (const QString& v : volumes()) any = any || backend_.has_journal(v.toStdString());
  resume_offered_ = any;
  resume_->setVisible(any);
  resume_->setChecked(any);
  if (any) status_->setText(tr("An interrupted re-encryption was found: it can be resumed with the same credentials."));
}

bool ReencryptDialog::resume_offered() const { return resume_offered_; }

QString ReencryptDialog::validate() const {
  if (volumes().isEmpty()) return tr("Add at least one container.");
  if (QString e = creds_->validate(); !e.isEmpty()) return e;
  if (with_hidden_->isChecked()) {
    if (QString e = hidden_creds_->validate(); !e.isEmpty()) return tr("Hidden volume: %1").arg(e);
  } else if (!no_hidden_->isChecked() && !resume_->isChecked()) {
    // A hidden volume cannot be detected without its password; re-encrypting only the outer one would destroy it.
    return tr("Confirm that the containers hold no hidden volume, or give the hidden volume's credentials.");
  }
  return {};
}

ReencryptJob ReencryptDialog::job() const {
  ReencryptJob j;
  for (const QString& v : volumes()) j.volumes.push_back(v.toStdString());
  j.credentials = creds_->credentials();
  if (int c = chain_->currentData().toInt(); c >= 0) j.new_chain = static_cast<ChainId>(c);
  if (int p = prf_->currentData().toInt(); p >= 0) j.new_prf = static_cast<PrfId>(p);
  j.resume = resume_->isChecked();
  j.no_hidden_volume = no_hidden_->isChecked() && !with_hidden_->isChecked();
  if (with_hidden_->isChecked()) j.hidden = hidden_creds_->credentials();
  return j;
}

void ReencryptDialog::start() {
  start_->setEnabled(false);
  cancel_ = false;
  const QStringList vols = volumes();
  table_->setRowCount(vols.size());
  for (int i = 0; i < vols.size(); ++i) {
    table_->setItem(i, 0, new QTableWidgetItem(vols[i]));
    table_->setItem(i, 1, new QTableWidgetItem(tr("waiting")));
  }
  ReencryptJob j = job();
  auto backend = backend_;
  // Progress arrives on worker threads: hand it to the UI thread.
  ProgressFn progress = [this, vols](const ProgressUpdate& u) {
    const int row = vols.indexOf(QString::fromStdString(u.item));
    const QString text = u.finished ? tr("done")
                                    : QString("%1: %2 of %3").arg(QString::fromStdString(u.phase), format_size(u.bytes_done),
                                                                   format_size(u.bytes_total));
    QMetaObject::invokeMethod(this, [this, row, text] {
      if (row >= 0 && table_->item(row, 1)) table_->item(row, 1)->setText(text);
    });
  };
  CancelToken cancel{[this] { return cancel_.load(); }};
  watcher_->setFuture(QtConcurrent::run([j, backend, progress, cancel]() -> QString {
    try {
      if (!backend.run) return QObject::tr("re-encryption is not available in this build");
      backend.run(j, progress, cancel);
      return {};
    } catch (const std::exception& e) {
      return QString::fromStdString(e.what());
    }
  }));
}

}  // namespace warpvol::gui
