#include "gui/favourites_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace warpvol::gui {

FavouritesDialog::FavouritesDialog(std::vector<Favourite> list, Favourite current, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Organize Favourite Volumes"));
  resize(860, 380);
  auto* layout = new QVBoxLayout(this);
  auto* hint = new QLabel(tr("Mount Favourites mounts these volumes in this order, each with its slot, mount point "
                             "and read-only flag (slot 0 or empty: the first free slot; mount point empty: the "
                             "slot's default folder). Double-click a cell to edit it."),
                          this);
  hint->setWordWrap(true);
  layout->addWidget(hint);
  table_ = new QTableWidget(0, ColumnCount, this);
  table_->setObjectName("favourites");
  table_->setHorizontalHeaderLabels({tr("Label"), tr("Volume"), tr("Slot"), tr("Mount point"), tr("Read-only")});
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setSectionResizeMode(Label, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(Volume, QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(MountPoint, QHeaderView::Stretch);
  table_->verticalHeader()->hide();
  layout->addWidget(table_, 1);
  for (const Favourite& f : list) add(f);

  auto* row = new QHBoxLayout;
  add_current_ = new QPushButton(tr("Add Current Volume"), this);
  add_current_->setObjectName("add_current");
  add_current_->setEnabled(!current.volume.isEmpty());
  add_current_->setToolTip(current.volume);
  connect(add_current_, &QPushButton::clicked, this, [this, current] { add(current); });
  auto* add_file = new QPushButton(tr("Add Volume..."), this);
  connect(add_file, &QPushButton::clicked, this, [this] {
    const QString f = choose_volume ? choose_volume()
                                    : QFileDialog::getOpenFileName(this, tr("Select a volume"), QDir::homePath());
    if (!f.isEmpty()) add(Favourite{.volume = f});
  });
  auto* remove = new QPushButton(tr("Remove"), this);
  connect(remove, &QPushButton::clicked, this, &FavouritesDialog::remove_selected);
  auto* up = new QPushButton(tr("Move Up"), this);
  connect(up, &QPushButton::clicked, this, [this] { move_selected(-1); });
  auto* down = new QPushButton(tr("Move Down"), this);
  connect(down, &QPushButton::clicked, this, [this] { move_selected(1); });
  for (QPushButton* b : {add_current_, add_file, remove, up, down}) row->addWidget(b);
  row->addStretch();
  layout->addLayout(row);

  error_ = new QLabel(this);
  error_->setObjectName("error");
  error_->setStyleSheet("color: #b00020");
  layout->addWidget(error_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &FavouritesDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

void FavouritesDialog::set_row(int r, const Favourite& f) {
  table_->setItem(r, Label, new QTableWidgetItem(f.label));
  table_->setItem(r, Volume, new QTableWidgetItem(f.volume));
  table_->setItem(r, Slot, new QTableWidgetItem(f.slot ? QString::number(f.slot) : QString()));
  table_->setItem(r, MountPoint, new QTableWidgetItem(f.mount_point));
  auto* ro = new QTableWidgetItem;
  ro->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  ro->setCheckState(f.read_only ? Qt::Checked : Qt::Unchecked);
  table_->setItem(r, ReadOnly, ro);
}

void FavouritesDialog::add(const Favourite& f) {
  const int r = table_->rowCount();
  table_->insertRow(r);
  set_row(r, f);
  table_->selectRow(r);
}

void FavouritesDialog::remove_selected() {
  const auto rows = table_->selectionModel()->selectedRows();
  if (!rows.isEmpty()) table_->removeRow(rows.first().row());
}

void FavouritesDialog::move_selected(int delta) {
  const auto rows = table_->selectionModel()->selectedRows();
  if (rows.isEmpty()) return;
  const int from = rows.first().row(), to = from + delta;
  if (to < 0 || to >= table_->rowCount()) return;
  auto list = favourites();
  std::swap(list[size_t(from)], list[size_t(to)]);
  set_row(from, list[size_t(from)]);
  set_row(to, list[size_t(to)]);
  table_->selectRow(to);
}

std::vector<Favourite> FavouritesDialog::favourites() const {
  std::vector<Favourite> out;
  auto text = [this](int r, int c) { return table_->item(r, c) ? table_->item(r, c)->text().trimmed() : QString(); };
  for (int r = 0; r < table_->rowCount(); ++r) {
    Favourite f;
    f.label = text(r, Label);
    f.volume = text(r, Volume);
    const QString slot = text(r, Slot);
    bool ok = true;
    f.slot = slot.isEmpty() ? 0 : slot.toInt(&ok);
    if (!ok) f.slot = -1;  // validate() names it
    f.mount_point = text(r, MountPoint);
    f.read_only = table_->item(r, ReadOnly) && table_->item(r, ReadOnly)->checkState() == Qt::Checked;
    out.push_back(f);
  }
  return out;
}

QString FavouritesDialog::validate() const { return validate_favourites(favourites()); }

void FavouritesDialog::accept() {
  const QString e = validate();
  error_->setText(e);
  if (e.isEmpty()) QDialog::accept();
}

}  // namespace warpvol::gui
