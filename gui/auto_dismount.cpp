#include "gui/auto_dismount.h"

namespace warpvol::gui {

AutoDismountPolicy::AutoDismountPolicy(ActivityProbe probe, QObject* parent)
    : QObject(parent), probe_(std::move(probe)) {}

void AutoDismountPolicy::tick(qint64 now_ms, const std::vector<SlotRow>& rows) {
  std::map<int, Seen> next;
  QList<int> idle;
  for (const SlotRow& r : rows) {
    auto it = seen_.find(r.slot);
    Seen s = it != seen_.end() ? it->second : Seen{};
    const std::optional<quint64> c = probe_ ? probe_(r) : std::nullopt;
    if (it == seen_.end() || c != s.counter || !c) {
      // New, active, or unreadable: the idle time starts again.
      s.counter = c;
      s.since_ms = now_ms;
    }
    const qint64 limit = qint64(prefs_.inactivity_minutes) * 60 * 1000;
    if (prefs_.on_inactivity && c && !s.asked && now_ms - s.since_ms >= limit) {
      s.asked = true;
      idle << r.slot;
    }
    next[r.slot] = s;
  }
  seen_ = std::move(next);
  if (!idle.isEmpty())
    emit dismount_requested(idle, tr("no I/O for %n minute(s)", nullptr, prefs_.inactivity_minutes), prefs_.force);
}

qint64 AutoDismountPolicy::idle_ms(int slot, qint64 now_ms) const {
  auto it = seen_.find(slot);
  return it == seen_.end() || !it->second.counter ? -1 : now_ms - it->second.since_ms;
}

void AutoDismountPolicy::screen_lock_changed(bool locked) {
  if (locked && prefs_.on_screen_lock) emit dismount_requested({}, tr("the screen was locked"), prefs_.force);
}

void AutoDismountPolicy::prepare_for_sleep(bool starting) {
  if (starting && prefs_.on_suspend) emit dismount_requested({}, tr("the computer is going to sleep"), prefs_.force);
}

void AutoDismountPolicy::session_ending() {
  if (prefs_.on_quit) emit dismount_requested({}, tr("warpvol is quitting"), prefs_.force);
}

}  // namespace warpvol::gui
