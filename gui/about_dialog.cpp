#include "gui/about_dialog.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QTextDocumentFragment>
#include <QUrl>
#include <QVBoxLayout>

#include "core/crypto/cpu_features.h"
#include "core/engine/engine_factory.h"

#ifndef WARPVOL_VERSION
#define WARPVOL_VERSION "unknown"
#endif
#ifndef WARPVOL_SOURCE_README
#define WARPVOL_SOURCE_README ""
#endif

namespace warpvol::gui {

QString warpvol_version() { return QStringLiteral(WARPVOL_VERSION); }

QString readme_path() {
  for (const QString& p : {QStringLiteral("/usr/share/doc/warpvol/README.md"),
                           QStringLiteral("/usr/local/share/doc/warpvol/README.md"),
                           QStringLiteral(WARPVOL_SOURCE_README)})
    if (!p.isEmpty() && QFileInfo(p).isFile()) return p;
  return {};
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("About warpvol"));
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  auto* icon = new QLabel(this);
  icon->setPixmap(QIcon(":/icons/warpvol.svg").pixmap(64, 64));
  icon->setAlignment(Qt::AlignTop);
  top->addWidget(icon);
  const QString readme = readme_path();
  const QString docs =
      readme.isEmpty() ? tr("Run <tt>warpvol --help</tt> and <tt>warpvol COMMAND --help</tt> for the commands.")
                       : tr("Documentation: <a href=\"%1\">%2</a>; <tt>warpvol --help</tt> lists the commands.")
                             .arg(QUrl::fromLocalFile(readme).toString(), readme.toHtmlEscaped());
  const std::string_view isa = isa_name(active_isa());
  const QString cpu_path = QString::fromUtf8(isa.data(), int(isa.size()));
  const QString engines = gpu_engine_compiled() ? tr("CPU (%1) and GPU (CUDA)").arg(cpu_path)
                                                : tr("CPU (%1); this build has no GPU engine").arg(cpu_path);
  body_ = new QLabel(
      tr("<h2>warpvol %1</h2>"
         "<p>A TrueCrypt/VeraCrypt-compatible volume tool: it opens, creates, mounts and re-encrypts VeraCrypt and "
         "TrueCrypt 6/7 containers with the same passwords, PIMs, keyfiles and hidden volumes VeraCrypt uses.</p>"
         "<p>Engines: %2. Qt %3.</p>"
         "<p>%4</p>"
         "<p>Format references: <a href=\"https://veracrypt.io/en/Documentation.html\">VeraCrypt documentation</a>."
         "</p>"
         "<p>Licence: this source tree does not declare one yet (it has no LICENSE file); ask its authors before "
         "redistributing.</p>")
          .arg(warpvol_version(), engines, QString::fromLatin1(qVersion()), docs),
      this);
  body_->setObjectName("about_text");
  body_->setWordWrap(true);
  body_->setOpenExternalLinks(true);
  body_->setTextInteractionFlags(Qt::TextBrowserInteraction);
  body_->setMinimumWidth(460);
  top->addWidget(body_, 1);
  layout->addLayout(top);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  layout->addWidget(buttons);
}

QString AboutDialog::text() const { return QTextDocumentFragment::fromHtml(body_->text()).toPlainText(); }

}  // namespace warpvol::gui
