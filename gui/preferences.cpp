#include "gui/preferences.h"

#include <QComboBox>
#include <QDir>

#include "core/crypto/chain.h"
#include "gui/create_wizard.h"

#include "core/mount/runtime.h"
#include "gui/operations.h"
#include "gui/settings.h"

namespace warpvol::gui {

QString engine_choice_name(EngineChoice e) {
  switch (e) {
    case EngineChoice::Cpu: return "cpu";
    case EngineChoice::Gpu: return "gpu";
    case EngineChoice::Auto: break;
  }
  return "auto";
}

void Preferences::apply_to_mount(MountParams& p) const {
  p.engine = engine;
  if (mount_point_base.isEmpty() || !p.mount_point.isEmpty() || p.no_filesystem) return;
  if (p.slot == 0) {
    std::vector<bool> used(mount::kMaxSlots + 1, false);
    try {
      for (const auto& r : mount::Registry().load_all())
        if (r.slot > 0 && r.slot <= mount::kMaxSlots) used[size_t(r.slot)] = true;
    } catch (const std::exception&) {
      // No registry yet: every slot is free.
    }
    for (int s = 1; s <= mount::kMaxSlots && !p.slot; ++s)
      if (!used[size_t(s)]) p.slot = s;
  }
  p.mount_point = QDir(mount_point_base).filePath(QString("slot%1").arg(p.slot));
}

void Preferences::apply_to_wizard(CreateWizard& w) const {
  if (!wizard_filesystem.isEmpty())
    if (int i = w.fs_combo->findText(wizard_filesystem); i >= 0) w.fs_combo->setCurrentIndex(i);
  if (!wizard_chain.isEmpty())
    if (auto c = parse_chain(wizard_chain.toStdString()))
      if (int i = w.chain_combo->findData(int(*c)); i >= 0) w.chain_combo->setCurrentIndex(i);
}

Preferences Preferences::load(Settings& settings) {
  QSettings& s = settings.raw();
  Preferences p;
  p.engine = parse_engine_choice(s.value("preferences/engine", "auto").toString().toStdString())
                 .value_or(EngineChoice::Auto);
  p.mount_read_only = s.value("preferences/mount_read_only", false).toBool();
  p.mount_point_base = s.value("preferences/mount_point_base").toString();
  p.save_history = !settings.never_save_history();
  auto& a = p.auto_dismount;
  a.on_inactivity = s.value("auto_dismount/on_inactivity", false).toBool();
  a.inactivity_minutes = std::max(1, s.value("auto_dismount/inactivity_minutes", 30).toInt());
  a.on_screen_lock = s.value("auto_dismount/on_screen_lock", false).toBool();
  a.on_suspend = s.value("auto_dismount/on_suspend", false).toBool();
  a.on_quit = s.value("auto_dismount/on_quit", false).toBool();
  a.force = s.value("auto_dismount/force", false).toBool();
  p.wizard_filesystem = s.value("wizard/filesystem").toString();
  p.wizard_chain = s.value("wizard/chain").toString();
  p.notifications = s.value("preferences/notifications", true).toBool();
  return p;
}

void Preferences::save(Settings& settings) const {
  QSettings& s = settings.raw();
  s.setValue("preferences/engine", engine_choice_name(engine));
  s.setValue("preferences/mount_read_only", mount_read_only);
  s.setValue("preferences/mount_point_base", mount_point_base);
  if (settings.never_save_history() == save_history) settings.set_never_save_history(!save_history);
  const auto& a = auto_dismount;
  s.setValue("auto_dismount/on_inactivity", a.on_inactivity);
  s.setValue("auto_dismount/inactivity_minutes", a.inactivity_minutes);
  s.setValue("auto_dismount/on_screen_lock", a.on_screen_lock);
  s.setValue("auto_dismount/on_suspend", a.on_suspend);
  s.setValue("auto_dismount/on_quit", a.on_quit);
  s.setValue("auto_dismount/force", a.force);
  s.setValue("wizard/filesystem", wizard_filesystem);
  s.setValue("wizard/chain", wizard_chain);
  s.setValue("preferences/notifications", notifications);
  s.sync();
}

}  // namespace warpvol::gui
