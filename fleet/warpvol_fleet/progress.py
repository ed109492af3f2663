"""Fleet progress on the driver: containers queued/running/done/failed, bytes, rate and ETA, on a terminal line
and as JSON lines (--progress-json, on stderr).

JSON lines: {"kind": "fleet", "phase": "run", "containers", "queued", "running", "done", "failed", "bytes_done",
"bytes_total", "bytes_per_second", "eta_s", "elapsed_s"} about once a second ({"kind": "fleet", "phase":
"preflight", "containers", "checked", "elapsed_s"} before), and {"kind": "container",
"volume", "event", ...} for each container event (started, retry, progress, done, already-done, failed, skipped),
with the node and process ids where the event comes from a worker.
"""
import json
import sys
import time
from typing import Dict, Optional, TextIO


def format_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def format_duration(s: Optional[float]) -> str:
    if s is None:
        return "--:--"
    s = int(s + 0.5)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class _Item:
    __slots__ = ("state", "total", "done", "base", "attempts")

    def __init__(self, total: int):
        self.state = "queued"
        self.total = total
        self.done = 0
        self.base: Optional[int] = None  # bytes already new when this run first saw it (a resumed job)
        self.attempts = 0


class FleetProgress:
    def __init__(self, mode: str, err: TextIO = sys.stderr):
        self.mode = mode  # "tty", "json", "plain", "quiet"
        self.err = err
        self.items: Dict[str, _Item] = {}
        self.phase = "preflight"
        self.t0 = time.monotonic()
        self.t_end = None  # when the last container finished: the rate and ETA stop there
        self.last_line = 0.0
        self.drawn = False
        self.checking = 0  # pre-flight: containers to check, and checked so far
        self.checked = 0

    def start_preflight(self, n: int):
        self.checking = n
        self.tick(force=True)

    def preflight_result(self):
        self.checked += 1
        self.tick()

    # ---- what happens ----
    def start_run(self, totals: Dict[str, int]):
        self.phase = "run"
        self.t0 = time.monotonic()
        self.t_end = None
        self.items = {v: _Item(t) for v, t in totals.items()}
        self.tick(force=True)

    def event(self, volume: str, ev: dict):
        it = self.items.get(volume)
        kind = ev.get("event")
        if it is not None and it.state in ("done", "failed"):
            it = None  # a late event of a finished container (events and results travel separately)
        if it is not None:
            if kind == "started":
                it.state = "running"
                it.attempts = max(it.attempts + 1, ev.get("attempt") or 0)
                if it.attempts > 1:
                    self._json_event(volume, dict(ev, event="retry"))
            elif kind == "progress":
                it.state = "running"
                if it.base is None:
                    it.base = int(ev.get("bytes", 0))
                it.done = int(ev.get("bytes", 0))
                it.total = int(ev.get("size", it.total)) or it.total
        self._json_event(volume, ev)
        if kind != "progress" and self.mode == "plain":
            self._plain(volume, ev)

    def finished(self, volume: str, result: str, detail: dict):
        it = self.items.get(volume)
        if it is not None:
            it.state = "done" if result in ("done", "already-done") else "failed"
            if it.state == "done":
                if it.base is None:
                    it.base = 0
                it.done = it.total
        if all(i.state in ("done", "failed") for i in self.items.values()):
            self.t_end = time.monotonic()
        ev = dict(detail, event=result)
        self._json_event(volume, ev)
        if self.mode == "plain":
            self._plain(volume, ev)
        self.tick(force=True)

    # ---- figures ----
    def snapshot(self) -> dict:
        counts = {"queued": 0, "running": 0, "done": 0, "failed": 0}
        done_b = total_b = fresh = 0
        for it in self.items.values():
            counts[it.state] += 1
            done_b += it.done
            total_b += it.total
            fresh += it.done - (it.base or 0)
        el = (self.t_end or time.monotonic()) - self.t0
        rate = fresh / el if el > 0.05 else 0.0
        eta = (total_b - done_b) / rate if rate > 0 and total_b > done_b else (0.0 if total_b <= done_b else None)
        if self.phase == "preflight":
            return dict(kind="fleet", phase=self.phase, containers=self.checking, checked=self.checked,
                        elapsed_s=round(el, 2))
        return dict(kind="fleet", phase=self.phase, containers=len(self.items), **counts, bytes_done=done_b,
                    bytes_total=total_b, bytes_per_second=int(rate), eta_s=None if eta is None else round(eta, 1),
                    elapsed_s=round(el, 2))

    def tick(self, force: bool = False):
        now = time.monotonic()
        period = 1.0 if self.mode == "json" else 0.25
        if not force and now - self.last_line < period:
            return
        self.last_line = now
        snap = self.snapshot()
        if self.mode == "json":
            self._write(json.dumps(snap))
        elif self.mode == "tty":
            self.err.write("\r\x1b[K" + self.line(snap))
            self.err.flush()
            self.drawn = True

    def close(self):
        if self.mode == "json" and self.items:
            self._write(json.dumps(self.snapshot()))
        if self.mode == "tty" and self.drawn:
            self.err.write("\r\x1b[K" + self.line(self.snapshot()) + "\n")
            self.err.flush()

    @staticmethod
    def line(s: dict) -> str:
        if s["phase"] == "preflight":
            return f"fleet: pre-flight, {s['checked']}/{s['containers']} containers checked"
        return (f"fleet: {s['done']}/{s['containers']} done, {s['running']} running, {s['failed']} failed, "
                f"{s['queued']} queued | {format_bytes(s['bytes_done'])} / {format_bytes(s['bytes_total'])} | "
                f"{format_bytes(s['bytes_per_second'])}/s | ETA {format_duration(s['eta_s'])}")

    # ---- output ----
    def _json_event(self, volume: str, ev: dict):
        if self.mode == "json":
            self._write(json.dumps(dict(kind="container", volume=volume, **ev)))

    def _plain(self, volume: str, ev: dict):
        kind = ev.get("event")
        if kind == "started":
            return
        note = ev.get("reason") or ev.get("description") or ""
        node = ev.get("node_ip") or ev.get("hostname") or ""
        self._write(f"{volume}: {kind}" + (f" on {node}" if node else "") + (f" -- {note}" if note else ""))

    def _write(self, line: str):
        if self.mode == "tty" and self.drawn:
            self.err.write("\r\x1b[K")
        self.err.write(line + "\n")
        self.err.flush()
