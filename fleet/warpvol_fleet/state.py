"""The fleet's state file, MANIFEST.fleet-state.jsonl: one JSON record per finished attempt at a container (result,
settings fingerprint, node, times), appended and fsynced as results arrive. It is the audit trail of every run
and what makes a rerun of the same command skip what is done. Appends are serialised with flock, since the
Slurm front end's array tasks append from many processes (and nodes) at once.
"""
import fcntl
import json
import os
from typing import Dict


def state_path(manifest: str) -> str:
    return manifest + ".fleet-state.jsonl"


def report_path(manifest: str) -> str:
    return manifest + ".fleet-report.json"


class StateFile:
    def __init__(self, path: str):
        self.path = path

    def load(self) -> Dict[str, dict]:
        """The last record of each volume. A torn last line (a driver killed mid-write) is ignored."""
        last: Dict[str, dict] = {}
        try:
            with open(self.path, encoding="utf-8") as f:
                for line in f:
                    try:
                        rec = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(rec, dict) and isinstance(rec.get("volume"), str):
                        last[rec["volume"]] = rec
        except FileNotFoundError:
            pass
        return last

    def append(self, record: dict):
        data = (json.dumps(record, sort_keys=True) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)


def is_done(record: dict, fingerprint: str) -> bool:
    return record.get("fingerprint") == fingerprint and record.get("result") in ("done", "already-done")
