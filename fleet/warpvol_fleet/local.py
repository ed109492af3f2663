"""The front end without Ray, for Slurm job arrays (fleet/slurm/): `preflight` checks the whole manifest on one
machine, `run-one --index I` re-encrypts the manifest's I-th container (SLURM_ARRAY_TASK_ID) with the same
per-container command the Ray tasks run, and `report` builds the report from the state file all of them append to.
"""
import os
import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import List, Tuple

from . import report as rep
from .manifest import Entry, ManifestError, read_manifest
from .state import StateFile, is_done, report_path, state_path
from .volume_job import Settings, TransientFailure, preflight, reencrypt


def _setup(args) -> Tuple[str, List[Entry], StateFile, Settings, dict]:
    manifest = os.path.abspath(args.manifest)
    entries = read_manifest(manifest)
    settings = Settings(warpvol=args.warpvol, new_encryption=args.new_encryption, new_hash=args.new_hash,
                        resilience=args.resilience, hotzone_size=args.hotzone_size, engine=args.engine,
                        busy_wait_s=args.busy_wait)
    defaults = {"new_encryption": args.new_encryption, "new_hash": args.new_hash}
    return manifest, entries, StateFile(state_path(manifest)), settings, defaults


def _here() -> dict:
    return {"hostname": socket.gethostname()}


def preflight_all(args) -> int:
    """Every container not yet done: `warpvol reencrypt --dry-run`; one line each; exit code of the first failure."""
    manifest, entries, state, settings, defaults = _setup(args)
    recorded = state.load()
    todo = [e for e in entries if not (e.volume in recorded and is_done(recorded[e.volume], e.fingerprint(defaults)))]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda e: preflight(e.to_task(), settings), todo))
    code = 0
    for e, res in zip(todo, results):
        st = res["status"]
        note = res.get("reason") or res.get("description", "")
        if st == "ready" and res.get("resume"):
            note = "an interrupted re-encryption resumes -- " + note
        print(f"{e.volume}: {st} -- {note}")
        if st not in ("ready", "already-done") and not code:
            code = res.get("code") or 3
    print(f"{sum(1 for r in results if r['status'] != 'failed')} of {len(todo)} containers ready "
          f"({len(entries) - len(todo)} recorded done)")
    return code


def run_one(args) -> int:
    manifest, entries, state, settings, defaults = _setup(args)
    if not 0 <= args.index < len(entries):
        raise ManifestError(f"--index {args.index} is outside the manifest's {len(entries)} containers (0-based)")
    e = entries[args.index]
    fp = e.fingerprint(defaults)
    rec = state.load().get(e.volume)
    if rec is not None and is_done(rec, fp):
        print(f"{e.volume}: already done ({rec.get('result')} at {rec.get('finished')}); nothing to do")
        return 0
    row = rep.new_row(e)
    row["started"] = rep.now_iso()
    row["attempts"] = 1
    t0 = time.monotonic()
    res = preflight(e.to_task(), settings)
    if res["status"] == "ready":
        try:
            res = reencrypt(e.to_task(), settings, None, _here())
        except TransientFailure as ex:
            res = {"status": "interrupted", "code": 6, "reason": f"{ex} (run the same array task again)"}
    elif res["status"] == "failed":
        res["reason"] = "pre-flight: " + res.get("reason", "")
    rep.apply_result(row, dict(res, **_here()))
    row["wall_seconds"] = time.monotonic() - t0
    state.append(dict(row, fingerprint=fp, manifest=manifest))
    print(f"{e.volume}: {row['result']} on {row['node']}" + (f" -- {row['reason']}" if row["reason"] else "")
          + (f" -- {row['description']}" if row["result"] == "done" else ""))
    return 0 if row["result"] in ("done", "already-done") else (row["code"] or 3)


def report_from_state(args) -> int:
    """The report of everything recorded so far (after a Slurm array, or to look at a Ray run again)."""
    manifest = os.path.abspath(args.manifest)
    entries = read_manifest(manifest)
    recorded = StateFile(state_path(manifest)).load()
    rows = []
    for e in entries:
        row = rep.new_row(e)
        rec = recorded.get(e.volume)
        if rec is None:
            row.update(result="skipped", reason="no attempt recorded yet")
        else:
            row.update({k: rec[k] for k in row if k in rec})
        rows.append(row)
    t = [r["wall_seconds"] or 0 for r in rows]
    summary = rep.summarize(rows, sum(t), len({r["node"] for r in rows if r["node"]}))
    summary.update(manifest=manifest, finished=rep.now_iso(), note="seconds = sum of the recorded attempts")
    rep.write_json(args.report or report_path(manifest), rows, summary)
    rep.print_table(rows, summary, sys.stdout, os.path.dirname(manifest))
    return summary["exit_code"]
