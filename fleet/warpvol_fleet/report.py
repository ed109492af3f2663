"""The final report: one row per manifest line (result, old and new chain and PRF, bytes, duration, attempts, the
node that did it), written as JSON next to the manifest and printed as a table."""
import json
import os
import re
import time
from typing import List, Optional, TextIO

from .progress import format_bytes

RESULTS = ("done", "already-done", "failed", "skipped", "interrupted")

# Job::describe(): "normal volume 4 MiB: AES -> Serpent, HMAC-SHA-512 -> HMAC-SHA-512, new master keys"
_DESCRIPTION = re.compile(r"volume [^:]*: (.+?) -> (.+?), (.+?) -> (.+?)(?:,| \(|;|$)")


def chains_from_description(description: str) -> dict:
    m = _DESCRIPTION.search(description or "")
    if not m:
        return {}
    return {"old_chain": m.group(1), "new_chain": m.group(2), "old_prf": m.group(3), "new_prf": m.group(4)}


def new_row(entry) -> dict:
    return {"volume": entry.volume, "line": entry.line, "result": None, "code": None, "reason": "",
            "description": "", "old_chain": None, "new_chain": None, "old_prf": None, "new_prf": None,
            "bytes": 0, "seconds": None, "wall_seconds": None, "attempts": 0, "resumed": False, "node": None,
            "node_id": None, "started": None, "finished": None}


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def exit_code(rows: List[dict]) -> int:
    """0 when every container is done; else the first failure's warpvol exit code (skipped ones carry the code of
    the pre-flight failure that stopped them), 6 when the run was interrupted."""
    if any(r["result"] == "interrupted" for r in rows):
        return 6
    for r in rows:
        if r["result"] not in ("done", "already-done"):
            return r["code"] or 3
    return 0


def write_json(path: str, rows: List[dict], summary: dict):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"summary": summary, "containers": rows}, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def summarize(rows: List[dict], seconds: float, nodes: int, run_seconds: Optional[float] = None) -> dict:
    """`seconds`: the whole command; the rates are over `run_seconds` (the re-encryption phase) when given."""
    counts = {k: sum(1 for r in rows if r["result"] == k) for k in RESULTS}
    b = sum(r["bytes"] or 0 for r in rows if r["result"] == "done")
    t = seconds if run_seconds is None else run_seconds
    return {"containers": len(rows), **counts, "bytes": b, "seconds": round(seconds, 3),
            "run_seconds": None if run_seconds is None else round(run_seconds, 3), "nodes": nodes,
            "containers_per_minute": round(counts["done"] / t * 60, 2) if t > 0 else None,
            "bytes_per_second": int(b / t) if t > 0 else None, "exit_code": exit_code(rows)}


def _short(p: str, width: int) -> str:
    return p if len(p) <= width else "..." + p[-(width - 3):]


def print_table(rows: List[dict], summary: dict, out: TextIO, base: Optional[str] = None):
    def name(r):
        v = r["volume"]
        return os.path.relpath(v, base) if base and v.startswith(base + os.sep) else v

    w = min(40, max([6] + [len(name(r)) for r in rows]))
    out.write(f"{'VOLUME':<{w}}  {'RESULT':<12}  {'CHAIN (OLD -> NEW)':<36}  {'TIME':>7}  {'NODE':<16}  NOTE\n")
    for r in rows:
        chain = f"{r['old_chain']} -> {r['new_chain']}" if r["old_chain"] else ""
        secs = r["wall_seconds"] if r["wall_seconds"] is not None else r["seconds"]
        t = f"{secs:.1f} s" if secs is not None else ""
        notes = []
        if r["resumed"]:
            notes.append("resumed")
        if r["attempts"] > 1:
            notes.append(f"{r['attempts']} attempts")
        if r["result"] not in ("done",) and r["reason"]:
            notes.append(r["reason"])
        out.write(f"{_short(name(r), w):<{w}}  {r['result'] or '':<12}  {chain:<36}  {t:>7}  "
                  f"{(r['node'] or '')[:16]:<16}  {'; '.join(notes)}\n")
    s = summary
    rate = format_bytes(s["bytes_per_second"] or 0)
    out.write(f"{s['done']} done, {s['already-done']} already done, {s['failed']} failed, {s['skipped']} skipped"
              f"{', %d interrupted' % s['interrupted'] if s['interrupted'] else ''} of {s['containers']} in "
              f"{s['seconds']:.1f} s on {s['nodes']} node(s), {format_bytes(s['bytes'])} re-encrypted"
              + (f"; re-encryption phase {s['run_seconds']:.1f} s: {rate}/s, {s['containers_per_minute']:.1f} "
                 f"containers/min" if s["done"] and s.get("run_seconds") else "") + "\n")
    out.flush()


def node_label(res: dict) -> Optional[str]:
    """Where it ran: IP (or host name) and the start of the Ray node id (several nodes may share one host)."""
    host = res.get("node_ip") or res.get("hostname")
    if not host:
        return None
    nid = res.get("node_id")
    return f"{host}/{nid[:6]}" if nid else host


def apply_result(row: dict, res: dict):
    """A pre-flight or run result (volume_job's dicts, plus node identity) into a report row."""
    status = res.get("status")
    row["result"] = status if status in RESULTS else row["result"]
    row["code"] = res.get("code")
    row["reason"] = res.get("reason", "")
    if res.get("description"):
        row["description"] = res["description"]
        row.update({k: v for k, v in chains_from_description(res["description"]).items()})
    for k in ("bytes", "seconds", "wall_seconds", "resumed", "node_id"):
        if k in res:
            row[k] = res[k]
    row["node"] = node_label(res) or row["node"]
    row["finished"] = now_iso()


def row_from_record(row: dict, rec: dict):
    """A container an earlier run finished: reported as already done, with what that run recorded."""
    for k in ("description", "old_chain", "new_chain", "old_prf", "new_prf", "node", "node_id"):
        row[k] = rec.get(k)
    row["result"] = "already-done"
    row["reason"] = f"recorded {rec.get('result')} at {rec.get('finished')} (not redone)"
