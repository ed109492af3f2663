// Keyfile Generator (VeraCrypt's Tools > Keyfile Generator): COUNT keyfiles of random bytes from core's CSPRNG
// (core/util/random.h, getrandom) in a folder, named BASE, BASE_1, BASE_2... (VeraCrypt's naming), each of SIZE
// bytes or of a random size in 64 bytes..1 MiB. Every target name is checked before the first file is written, so
// a clash leaves the folder as it was.
#pragma once
#include <QDialog>
#include <QStringList>

class QCheckBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace warpvol::gui {

struct KeyfileBatch {
  QString folder;
  QString base_name;
  int count = 1;
  int size = 64;             // bytes, 64..1 MiB
  bool random_size = false;  // each file 64 bytes..1 MiB, chosen by the CSPRNG
};

// The paths generate_keyfiles() would write, in order.
QStringList keyfile_batch_paths(const KeyfileBatch& b);
// Writes the keyfiles (mode 0600, each atomically). Throws Error(Usage) for bad input, Error(Busy) when a target
// exists (before anything is written).
QStringList generate_keyfiles(const KeyfileBatch& b);

class KeyfileGeneratorDialog : public QDialog {
  Q_OBJECT
 public:
  explicit KeyfileGeneratorDialog(QWidget* parent = nullptr);
  KeyfileBatch batch() const;
  // Generates; the result line (written files or the error) goes to the status label. True on success.
  bool generate();
  QLineEdit* folder_edit = nullptr;
  QLineEdit* name_edit = nullptr;
  QSpinBox* count_spin = nullptr;
  QSpinBox* size_spin = nullptr;
  QCheckBox* random_size_box = nullptr;
  QLabel* status_label = nullptr;
};

}  // namespace warpvol::gui
