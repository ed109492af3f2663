// Help > About: version, what the program is, licence, where the documentation is, and the engines this build has.
#pragma once
#include <QDialog>

class QLabel;

namespace warpvol::gui {

QString warpvol_version();

class AboutDialog : public QDialog {
  Q_OBJECT
 public:
  explicit AboutDialog(QWidget* parent = nullptr);
  QString text() const;  // the dialog's text (plain), for tests

 private:
  QLabel* body_;
};

// Where the README is: next to the installed documentation, else the source tree this was built from; empty
// when neither exists.
QString readme_path();

}  // namespace warpvol::gui
