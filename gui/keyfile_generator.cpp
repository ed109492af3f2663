#include "gui/keyfile_generator.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/create/keyfile.h"
#include "core/util/error.h"
#include "core/util/random.h"

namespace warpvol::gui {

QStringList keyfile_batch_paths(const KeyfileBatch& b) {
  QStringList out;
  const QDir dir(b.folder);
  for (int i = 0; i < b.count; ++i) out << dir.filePath(i == 0 ? b.base_name : QString("%1_%2").arg(b.base_name).arg(i));
  return out;
}

QStringList generate_keyfiles(const KeyfileBatch& b) {
  if (b.folder.isEmpty() || !QFileInfo(b.folder).isDir())
    throw Error(ErrorKind::Usage, "choose an existing folder for the keyfiles");
  if (b.base_name.isEmpty() || b.base_name.contains('/'))
    throw Error(ErrorKind::Usage, "the keyfile name must be a file name (no '/')");
  if (b.count < 1 || b.count > 1000) throw Error(ErrorKind::Usage, "the number of keyfiles must be 1..1000");
  if (!b.random_size && (size_t(b.size) < kKeyfileMinSize || size_t(b.size) > kKeyfileMaxSize))
    throw Error(ErrorKind::Usage, "keyfile size must be between 64 bytes and 1 MiB (1048576 bytes)");
  const QStringList paths = keyfile_batch_paths(b);
  for (const QString& p : paths)
    if (QFileInfo::exists(p)) throw Error(ErrorKind::Busy, p.toStdString() + " exists: nothing was written");
  for (const QString& p : paths) {
    size_t size = size_t(b.size);
    if (b.random_size) {
      uint32_t r = 0;
      random_bytes(reinterpret_cast<uint8_t*>(&r), sizeof r);
      size = kKeyfileMinSize + r % (kKeyfileMaxSize - kKeyfileMinSize + 1);
    }
    create_keyfile(p.toStdString(), size, false);
  }
  return paths;
}

KeyfileGeneratorDialog::KeyfileGeneratorDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Keyfile Generator"));
  auto* layout = new QVBoxLayout(this);
  auto* note = new QLabel(tr("Keyfiles are random bytes from the kernel's CSPRNG (getrandom). Keep them secret and "
                             "back them up: a lost keyfile locks the volume for good."),
                          this);
  note->setWordWrap(true);
  layout->addWidget(note);
  auto* form = new QFormLayout;
  auto* folder_row = new QHBoxLayout;
  folder_edit = new QLineEdit(QDir::homePath(), this);
  auto* browse = new QPushButton(tr("Browse..."), this);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Folder for the keyfiles"), folder_edit->text());
    if (!d.isEmpty()) folder_edit->setText(d);
  });
  folder_row->addWidget(folder_edit, 1);
  folder_row->addWidget(browse);
  form->addRow(tr("Folder:"), folder_row);
  name_edit = new QLineEdit("keyfile", this);
  form->addRow(tr("Keyfile base name:"), name_edit);
  count_spin = new QSpinBox(this);
  count_spin->setRange(1, 1000);
  form->addRow(tr("Number of keyfiles:"), count_spin);
  size_spin = new QSpinBox(this);
  size_spin->setRange(int(kKeyfileMinSize), int(kKeyfileMaxSize));
  size_spin->setValue(int(kKeyfileMinSize));
  size_spin->setSuffix(tr(" bytes"));
  form->addRow(tr("Keyfile size:"), size_spin);
  random_size_box = new QCheckBox(tr("Random size (64 bytes to 1 MiB)"), this);
  connect(random_size_box, &QCheckBox::toggled, size_spin, [this](bool on) { size_spin->setEnabled(!on); });
  form->addRow(QString(), random_size_box);
  layout->addLayout(form);
  status_label = new QLabel(this);
  status_label->setObjectName("status");
  status_label->setWordWrap(true);
  status_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(status_label);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  auto* gen = buttons->addButton(tr("Generate and Save"), QDialogButtonBox::ActionRole);
  connect(gen, &QPushButton::clicked, this, [this] { generate(); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

KeyfileBatch KeyfileGeneratorDialog::batch() const {
  KeyfileBatch b;
  b.folder = folder_edit->text().trimmed();
  b.base_name = name_edit->text().trimmed();
  b.count = count_spin->value();
  b.size = size_spin->value();
  b.random_size = random_size_box->isChecked();
  return b;
}

bool KeyfileGeneratorDialog::generate() {
  try {
    const QStringList written = generate_keyfiles(batch());
    status_label->setStyleSheet(QString());
    status_label->setText(written.size() == 1 ? tr("Written: %1").arg(written.first())
                                              : tr("Written %1 keyfiles: %2 ... %3")
                                                    .arg(written.size())
                                                    .arg(written.first(), written.last()));
    return true;
  } catch (const std::exception& e) {
    status_label->setStyleSheet("color: #b00020");
    status_label->setText(QString::fromStdString(e.what()));
    return false;
  }
}

}  // namespace warpvol::gui
