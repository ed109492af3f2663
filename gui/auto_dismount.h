// Auto-dismount (VeraCrypt's Preferences > Auto-Dismount): the rules, kept apart from where their events come from
// so tests drive them with fake events. Inactivity: each mounted slot's I/O counter (mount_activity.h) is sampled
// by tick(); a slot whose counter has not moved for the configured minutes is dismounted. Screen lock, suspend and
// the end of the session (quit, logout) dismount every volume, each when its preference is on. The policy only
// asks (dismount_requested); the main window dismounts and tells the user.
#pragma once
#include <QList>
#include <QObject>
#include <functional>
#include <map>
#include <optional>

#include "gui/preferences.h"
#include "gui/slot_model.h"

namespace warpvol::gui {

class AutoDismountPolicy : public QObject {
  Q_OBJECT
 public:
  // The I/O counter of a mounted slot; nullopt when it cannot be read (the slot then never counts as idle).
  using ActivityProbe = std::function<std::optional<quint64>(const SlotRow&)>;
  explicit AutoDismountPolicy(ActivityProbe probe, QObject* parent = nullptr);
  void set_prefs(const AutoDismountPrefs& p) { prefs_ = p; }
  const AutoDismountPrefs& prefs() const { return prefs_; }

  // Samples every mounted slot at now_ms (a monotonic clock); asks to dismount the slots idle for too long.
  void tick(qint64 now_ms, const std::vector<SlotRow>& rows);
  // Milliseconds since the slot's counter last moved (-1 when unknown), for tests and the tooltip.
  qint64 idle_ms(int slot, qint64 now_ms) const;

 public slots:
  void screen_lock_changed(bool locked);
  void prepare_for_sleep(bool starting);
  void session_ending();

 signals:
  // which empty: every mounted volume. force: lazy unmount when files are open.
  void dismount_requested(const QList<int>& which, const QString& reason, bool force);

 private:
  struct Seen {
    std::optional<quint64> counter;
    qint64 since_ms = 0;  // when the counter last changed (or the slot was first seen)
    bool asked = false;   // a dismount was requested; not again while the slot stays
  };
  ActivityProbe probe_;
  AutoDismountPrefs prefs_;
  std::map<int, Seen> seen_;
};

}  // namespace warpvol::gui
