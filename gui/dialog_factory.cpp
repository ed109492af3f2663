#include "gui/dialog_factory.h"

#include <QDialog>
#include <QDir>
#include <QFileDialog>
#include <QMessageBox>

namespace warpvol::gui {

bool DialogFactory::run(QDialog& dialog) { return dialog.exec() == QDialog::Accepted; }

void DialogFactory::message(QWidget* parent, const QString& title, const QString& text, bool error) {
  if (error)
    QMessageBox::critical(parent, title, text);
  else
    QMessageBox::information(parent, title, text);
}

QString DialogFactory::choose_volume(QWidget* parent) {
  return QFileDialog::getOpenFileName(parent, QObject::tr("Select a volume"), QDir::homePath());
}

bool DialogFactory::confirm(QWidget* parent, const QString& title, const QString& text) {
  return QMessageBox::question(parent, title, text) == QMessageBox::Yes;
}

}  // namespace warpvol::gui
