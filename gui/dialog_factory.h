// How the main window shows dialogs and messages. The default shows them modally; tests inject a factory that
// fills a dialog and returns at once, so no nested modal loop can hang a headless run.
#pragma once
#include <QString>

class QDialog;
class QWidget;

namespace warpvol::gui {

class DialogFactory {
 public:
  virtual ~DialogFactory() = default;
  // Runs the dialog; true when the user accepted it.
  virtual bool run(QDialog& dialog);
  virtual void message(QWidget* parent, const QString& title, const QString& text, bool error);
  virtual QString choose_volume(QWidget* parent);
  virtual bool confirm(QWidget* parent, const QString& title, const QString& text);
};

}  // namespace warpvol::gui
