// The user's preferences (Preferences dialog), stored in the GUI's settings file (gui/settings.*) under
// "preferences/": the engine mounts use, mount defaults, auto-dismount rules and the creation wizard's defaults.
#pragma once
#include <QString>

#include "core/engine/engine_factory.h"

namespace warpvol::gui {

class Settings;
struct MountParams;
class CreateWizard;

struct AutoDismountPrefs {
  bool on_inactivity = false;
  int inactivity_minutes = 30;  // no I/O on a mount for this long
  bool on_screen_lock = false;
  bool on_suspend = false;
  bool on_quit = false;         // when the GUI quits (logout ends the session and the GUI with it)
  bool force = false;           // lazy unmount when files are still open, as VeraCrypt's "force" option
  bool operator==(const AutoDismountPrefs&) const = default;
};

struct Preferences {
  EngineChoice engine = EngineChoice::Auto;
  bool mount_read_only = false;   // the Mount dialog's read-only box starts checked
  QString mount_point_base;       // empty: the default (/media/warpvol or the runtime folder); else <base>/slotN
  bool save_history = true;       // the container path history (the main window's "Never save history" box)
  AutoDismountPrefs auto_dismount;
  QString wizard_filesystem;      // empty: the wizard's own default; else a type the wizard offers
  QString wizard_chain;           // empty: the wizard's own default; else a chain's cli name ("aes-twofish")
  bool notifications = true;      // tray notifications (mount, dismount, auto-dismount)
  bool operator==(const Preferences&) const = default;

  // What the Mount dialog leaves to the preferences: the engine, and the mount point under mount_point_base when
  // the user named none (the slot is then fixed: the requested one, else the lowest free one now).
  void apply_to_mount(MountParams& p) const;

  // The creation wizard's default filesystem and chain, where set.
  void apply_to_wizard(CreateWizard& w) const;

  static Preferences load(Settings& s);
  void save(Settings& s) const;
};

QString engine_choice_name(EngineChoice e);  // "auto", "cpu", "gpu"

}  // namespace warpvol::gui
