"""The per-container command: pre-flight and re-encryption of ONE container through the real ``warpvol`` binary.

Used by the Ray tasks (ray_tasks.py) and by ``warpvol-fleet run-one`` (the Slurm job array), so both front ends do
exactly the same thing. Nothing here reads a password: warpvol reads the password files named in a private
credentials file (mode 0600, paths only) that exists only while warpvol runs.
"""
import ctypes
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Callable, Dict, List, Optional

Reporter = Callable[[dict], None]

# warpvol's exit codes (cli/exit_codes.cpp).
EXIT_AUTH = 2
EXIT_BUSY = 5
EXIT_INTERRUPTED = 6


class TransientFailure(Exception):
    """An attempt that a later attempt can finish: warpvol killed or interrupted (its journal resumes), or the
    container still locked by a dying earlier attempt. Ray retries these; a wrong password is not one."""


@dataclass
class Settings:
    warpvol: str = "warpvol"
    new_encryption: Optional[str] = None
    new_hash: Optional[str] = None
    resilience: Optional[str] = None
    hotzone_size: Optional[str] = None
    engine: Optional[str] = None
    busy_wait_s: float = 60.0   # how long a run waits for a lock held by an earlier attempt of the same container

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict) -> "Settings":
        return Settings(**d)


_PR_SET_PDEATHSIG = 1
_prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before fork: the child only calls it


def _die_with_parent():
    # warpvol must not outlive the worker that runs it: a worker killed with SIGKILL (or lost with its node)
    # would otherwise leave warpvol running and holding the container's lock while Ray retries the task
    # elsewhere. SIGKILL, not SIGTERM: the journal makes any stopping point safe, and the lock goes at once.
    # (The signal follows the forking thread; Ray runs a task on the worker's main thread.)
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


@contextmanager
def _credentials_file(task: dict):
    folder = tempfile.mkdtemp(prefix="warpvol-fleet-")  # mode 0700
    path = os.path.join(folder, "credentials.jsonl")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(task["credentials"]) + "\n")
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _reencrypt_argv(settings: Settings, task: dict, cred_path: str) -> List[str]:
    argv = [settings.warpvol, "reencrypt", "--credentials-file", cred_path, "--non-interactive", "--json"]
    chain = task.get("new_encryption") or settings.new_encryption
    prf = task.get("new_hash") or settings.new_hash
    if chain:
        argv += ["--new-encryption", chain]
    if prf:
        argv += ["--new-hash", prf]
    if settings.resilience:
        argv += ["--resilience", settings.resilience]
    if settings.hotzone_size:
        argv += ["--hotzone-size", settings.hotzone_size]
    if settings.engine:
        argv += ["--engine", settings.engine]
    return argv


def _summary(stdout: str) -> dict:
    """warpvol's --json output: the batch summary, or {"error", "code"} for an error before the batch."""
    try:
        j = json.loads(stdout)
    except ValueError:
        return {}
    if isinstance(j, dict) and isinstance(j.get("volumes"), list) and j["volumes"]:
        return j["volumes"][0]
    return j if isinstance(j, dict) else {}


def _failure(rc: int, summary: dict, stderr_tail: str) -> dict:
    reason = summary.get("reason") or summary.get("error") or stderr_tail.strip() or f"warpvol exit {rc}"
    return {"status": "failed", "code": rc, "reason": reason}


def _opens_with_new_credentials(task: dict, settings: Settings) -> Optional[dict]:
    """`warpvol info` with the new credentials: their header opens once a re-encryption has finished."""
    c = task["credentials"]
    pw_file = c.get("new_password_file", c.get("password_file"))
    keyfiles = [] if c.get("no_keyfiles") else c.get("new_keyfiles", c.get("keyfiles", []))
    pim = c.get("new_pim", c.get("pim", 0))
    argv = [settings.warpvol, "info", task["volume"], "--json", "--non-interactive", "--pim", str(pim)]
    for k in keyfiles:
        argv += ["-k", k]
    stdin = subprocess.DEVNULL
    try:
        if pw_file:
            stdin = open(pw_file, "rb")  # handed to warpvol; never read here
            argv.append("--password-stdin")
        r = subprocess.run(argv, stdin=stdin, capture_output=True, text=True, preexec_fn=_die_with_parent)
    except OSError:
        return None
    finally:
        if stdin is not subprocess.DEVNULL:
            stdin.close()
    if r.returncode != 0:
        return None
    try:
        info = json.loads(r.stdout)
    except ValueError:
        return None
    chain = task.get("new_encryption") or settings.new_encryption
    if chain and info.get("encryption_cli") != chain.lower():
        return None
    return info


def preflight(task: dict, settings: Settings) -> dict:
    """`warpvol reencrypt --dry-run`: {"status": "ready", "resume", "total_bytes", "description"} or
    {"status": "already-done", "description"} or {"status": "failed", "code", "reason"}. Writes nothing."""
    try:
        with _credentials_file(task) as cred:
            r = subprocess.run(_reencrypt_argv(settings, task, cred) + ["--dry-run"], stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, preexec_fn=_die_with_parent)
    except OSError as ex:
        return _cannot_run(settings, ex)
    s = _summary(r.stdout)
    if r.returncode < 0:
        raise TransientFailure(f"warpvol --dry-run killed by signal {-r.returncode}")
    if r.returncode == 0 and s.get("status") == "ready":
        return {"status": "ready", "resume": bool(s.get("resume")), "total_bytes": int(s.get("total_bytes", 0)),
                "description": s.get("description", "")}
    if r.returncode == EXIT_AUTH:
        info = _opens_with_new_credentials(task, settings)
        if info is not None:
            return {"status": "already-done",
                    "description": f"opens with the new credentials: {info.get('encryption')}, "
                                   f"{info.get('kdf', {}).get('prf_name', info.get('prf'))}"}
    return _failure(r.returncode, s, r.stderr[-500:])


def reencrypt(task: dict, settings: Settings, report: Optional[Reporter] = None,
              where: Optional[Dict[str, object]] = None) -> dict:
    """Runs `warpvol reencrypt` to the end. Returns {"status": "done", "bytes", "seconds", "resumed",
    "description", ...} or {"status": "failed", "code", "reason"}; raises TransientFailure for what a retry
    finishes. `report` gets {"event": "started"|"progress", ...} dicts (no secrets)."""
    where = dict(where or {})
    deadline = time.monotonic() + settings.busy_wait_s
    while True:
        res = _reencrypt_once(task, settings, report, where)
        if res.get("code") == EXIT_BUSY and time.monotonic() < deadline:
            time.sleep(1.0)  # an earlier attempt on a dead worker or node may still be releasing the lock
            continue
        if res.get("code") == EXIT_BUSY:
            raise TransientFailure(f"{task['volume']}: still locked after {settings.busy_wait_s:.0f} s: "
                                   f"{res.get('reason')}")
        if res.get("code") == EXIT_AUTH:
            # The pre-flight opened it with the old credentials, so an earlier attempt of this task finished the
            # job in between: its warpvol outlived a worker or node that Ray gave up on (a network partition).
            info = _opens_with_new_credentials(task, settings)
            if info is not None:
                return {"status": "done", "bytes": 0, "seconds": 0.0, "resumed": True,
                        "reason": f"finished by an earlier attempt; opens with the new credentials "
                                  f"({info.get('encryption')})"}
        return res


def _cannot_run(settings: Settings, ex: OSError) -> dict:
    return {"status": "failed", "code": 3, "reason": f"cannot run {settings.warpvol} on this node: {ex.strerror}"}


def _reencrypt_once(task: dict, settings: Settings, report: Optional[Reporter], where: dict) -> dict:
    try:
        return _reencrypt_run(task, settings, report, where)
    except OSError as ex:
        return _cannot_run(settings, ex)


def _reencrypt_run(task: dict, settings: Settings, report: Optional[Reporter], where: dict) -> dict:
    emit = report or (lambda e: None)
    t0 = time.monotonic()
    with _credentials_file(task) as cred:
        p = subprocess.Popen(_reencrypt_argv(settings, task, cred) + ["--progress-json"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_die_with_parent)
        out: List[str] = []
        reader = threading.Thread(target=lambda: out.append(p.stdout.read()), daemon=True)
        reader.start()
        emit(dict(where, event="started", warpvol_pid=p.pid, worker_pid=os.getpid()))
        tail: List[str] = []
        last = 0.0
        for line in p.stderr:
            if line.startswith("{"):
                try:
                    j = json.loads(line)
                except ValueError:
                    continue
                if j.get("device") == "total":
                    continue
                now = time.monotonic()
                if now - last >= 0.5 or j.get("finished"):
                    last = now
                    emit(dict(where, event="progress", phase=j.get("phase"), bytes=int(j.get("device_bytes", 0)),
                              size=int(j.get("device_size", 0)), warpvol_pid=p.pid, worker_pid=os.getpid()))
            else:
                tail = (tail + [line])[-5:]
        rc = p.wait()
        reader.join()
    stdout = out[0] if out else ""
    s = _summary(stdout)
    if rc < 0:
        raise TransientFailure(f"warpvol killed by signal {-rc} (the journal resumes it)")
    if rc == EXIT_INTERRUPTED:
        raise TransientFailure("warpvol interrupted at a safe point (the journal resumes it)")
    if rc != 0 or s.get("status") != "done":
        return _failure(rc, s, "".join(tail))
    return {"status": "done", "bytes": int(s.get("bytes", 0)), "seconds": float(s.get("seconds", 0.0)),
            "wall_seconds": time.monotonic() - t0, "resumed": bool(s.get("resumed")),
            "description": s.get("description", "")}
