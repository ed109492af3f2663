"""warpvol-fleet without Ray: the manifest checks, `preflight`, and the Slurm front end (fleet/slurm/
reencrypt-array.sbatch run as an array task would run it, SLURM_ARRAY_TASK_ID set) over real containers.

- Manifest lines with a password in them, unknown keys, no volume, a volume listed twice: exit 1, one line naming
  the manifest line, and the password itself never echoed.
- `preflight`: a wrong password is reported (exit 2), nothing written; no warpvol binary: exit 3, said per line.
- Array tasks: each container re-encrypted by its task; the wrong one fails (exit 2); a `warpvol` killed with
  SIGKILL mid-container makes its task exit 6 (interrupted) and the same task again resumes it; a task for a
  finished container does nothing; `report` has the table and the JSON; every good container exports to its
  original plaintext with the new password.
- With the state file lost, `preflight` finds the finished containers by opening them with the new credentials.
- A run that waits for the lock of an earlier attempt, which then finishes the container, reports it done (not a
  wrong password).

Args: warpvol binary. Run by fleet/tests/run.sh with the fleet venv's Python.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fleet_fixture as fx  # noqa: E402

WV = os.path.abspath(sys.argv[1])
ARRAY = os.path.join(HERE, "..", "slurm", "reencrypt-array.sbatch")
FLEET = os.path.join(os.path.dirname(sys.executable), "warpvol-fleet")
MiB = 1 << 20


def fail(msg: str):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def parent_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("PPid:"))
    except (OSError, StopIteration):
        return 0


def fleet(*args, env=None):
    r = subprocess.run([FLEET, *args], capture_output=True, text=True, env=env)
    return r.returncode, r.stdout, r.stderr


def array_task(manifest: str, index: int, env=None):
    e = dict(env or os.environ, SLURM_ARRAY_TASK_ID=str(index), WARPVOL_FLEET=FLEET)
    return subprocess.Popen(["bash", ARRAY, manifest, "--warpvol", WV, "--new-encryption", "twofish"], env=e,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main():
    T = tempfile.mkdtemp(prefix="wv-fleet-local-", dir="/tmp")
    try:
        # ---- manifest checks ----
        m = os.path.join(T, "bad.jsonl")
        cases = [
            ('{"volume": "a.hc", "password": "hunter2-secret"}', "password_file"),
            ('{"volume": "a.hc", "password_file": "p", "colour": 1}', 'unknown key "colour"'),
            ('{"password_file": "p"}', '"volume" (a path) is required'),
            ('{"volume": "a.hc"}', '"password_file" or "keyfiles" is required'),
            ('{"volume": "a.hc", "password_file": "p"}\n{"volume": "./a.hc", "keyfiles": ["k"]}', "already listed"),
            ('[1, 2]', "not a JSON object"),
        ]
        for text, want in cases:
            with open(m, "w") as f:
                f.write(text + "\n")
            rc, out, err = fleet("preflight", "--manifest", m, "--warpvol", WV)
            if rc != 1 or want not in err or "line" not in err or err.count("\n") != 1:
                fail(f"manifest {text!r}: exit {rc}, {err!r} (want exit 1 and '{want}')")
            if "hunter2" in err + out:
                fail("the manifest's password was echoed")

        # ---- containers: 4 small, one large one to kill mid-container, one wrong password ----
        sizes = [MiB, 2 * MiB, 3 * MiB, 48 * MiB]
        plain = fx.make_fleet(WV, T, sizes)
        vols = [os.path.join(T, f"c{i:02d}.hc") for i in range(4)]
        manifest = os.path.join(T, "manifest.jsonl")
        fx.write_secret(os.path.join(T, "old", "01.txt"), "wrong")
        stamps = {v: os.stat(v).st_mtime_ns for v in vols}
        rc, out, err = fleet("preflight", "--manifest", manifest, "--warpvol", WV, "--new-encryption", "twofish")
        if rc != 2 or out.count(": ready --") != 3 or "c01.hc: failed -- wrong password" not in out:
            fail(f"preflight with a wrong password: exit {rc}\n{out}{err}")
        if {v: os.stat(v).st_mtime_ns for v in vols} != stamps:
            fail("preflight wrote to a container")
        rc, out, err = fleet("preflight", "--manifest", manifest, "--warpvol", os.path.join(T, "no-such-warpvol"))
        if rc != 3 or out.count("cannot run") != 4:
            fail(f"preflight without a warpvol binary: exit {rc}\n{out}{err}")

        # ---- the array tasks ----
        for i in (0, 2):
            p = array_task(manifest, i)
            out, err = p.communicate()
            if p.returncode != 0 or "done on" not in out:
                fail(f"array task {i}: exit {p.returncode}\n{out}{err}")
        p = array_task(manifest, 1)
        out, err = p.communicate()
        if p.returncode != 2 or "wrong password" not in out:
            fail(f"array task 1 (wrong password): exit {p.returncode}\n{out}{err}")
        # The large one, slowed by warpvol's portable code, killed when its journal exists.
        slow = dict(os.environ, WARPVOL_CPU_PATH="portable")
        p = array_task(manifest, 3, slow)
        journal = vols[3] + ".warpvol-reencrypt"
        deadline = time.monotonic() + 60
        while not os.path.exists(journal) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        # bash exec'd warpvol-fleet (same pid); warpvol is its child.
        kids = [int(pid) for pid in os.listdir("/proc") if pid.isdigit() and parent_of(int(pid)) == p.pid]
        for k in kids:
            os.kill(k, signal.SIGKILL)
        out, err = p.communicate()
        if p.returncode != 6 or "interrupted" not in out or not os.path.exists(journal):
            fail(f"array task 3 with warpvol killed: exit {p.returncode}, journal {os.path.exists(journal)}\n{out}{err}")
        p = array_task(manifest, 3)
        out, err = p.communicate()
        if p.returncode != 0 or "done on" not in out:
            fail(f"array task 3 again: exit {p.returncode}\n{out}{err}")
        before = os.stat(vols[0]).st_mtime_ns
        p = array_task(manifest, 0)
        out, err = p.communicate()
        if p.returncode != 0 or "already done" not in out or os.stat(vols[0]).st_mtime_ns != before:
            fail(f"array task 0 again must do nothing: exit {p.returncode}\n{out}{err}")

        rc, out, err = fleet("report", "--manifest", manifest, "--warpvol", WV)
        rows = {r["volume"]: r for r in json.load(open(manifest + ".fleet-report.json"))["containers"]}
        if rc != 2 or [rows[v]["result"] for v in vols] != ["done", "failed", "done", "done"]:
            fail(f"report: exit {rc}\n{out}{err}")
        if not rows[vols[3]]["resumed"] or rows[vols[3]]["new_chain"] != "Twofish" or "c03.hc" not in out:
            fail(f"report row of the resumed container: {rows[vols[3]]}\n{out}")
        for i, v in enumerate(vols):
            pw = os.path.join(T, "new" if i != 1 else "old", f"{i:02d}.txt")
            if i == 1:
                fx.write_secret(pw, "old password 1")
            if fx.export_with(WV, v, pw) != plain[v]:
                fail(f"c{i:02d}: plaintext differs after the array tasks")

        # ---- state lost: finished containers are recognised by their new credentials ----
        os.unlink(manifest + ".fleet-state.jsonl")
        rc, out, err = fleet("preflight", "--manifest", manifest, "--warpvol", WV, "--new-encryption", "twofish")
        if rc != 0 or out.count(": already-done -- opens with the new credentials: Twofish") != 3:
            fail(f"preflight without the state file: exit {rc}\n{out}{err}")
        # ---- a retry that waits for the lock of an earlier attempt which then finishes the container ----
        # (its warpvol outlived a worker Ray gave up on): the retry must report done, not a wrong password.
        from warpvol_fleet.manifest import read_manifest
        from warpvol_fleet.volume_job import Settings, _credentials_file, reencrypt
        o = os.path.join(T, "orphan")
        os.makedirs(o)
        plain_o = fx.make_fleet(WV, o, [48 * MiB])
        task = read_manifest(os.path.join(o, "manifest.jsonl"))[0].to_task()
        with _credentials_file(task) as cred:
            orphan = subprocess.Popen([WV, "reencrypt", "--credentials-file", cred, "--new-encryption", "twofish",
                                       "-q"], env=slow, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            journal = task["volume"] + ".warpvol-reencrypt"
            deadline = time.monotonic() + 60
            while not os.path.exists(journal) and orphan.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            if not os.path.exists(journal):
                fail("the earlier attempt did not start")
            res = reencrypt(task, Settings(warpvol=WV, new_encryption="twofish", busy_wait_s=120))
            orphan.wait()
        if res.get("status") != "done" or "earlier attempt" not in res.get("reason", ""):
            fail(f"retry behind a finishing earlier attempt: {res}")
        if fx.export_with(WV, task["volume"], os.path.join(o, "new", "00.txt")) != plain_o[task["volume"]]:
            fail("the container finished by the earlier attempt lost its plaintext")
        print("PASS")
    finally:
        shutil.rmtree(T, ignore_errors=True)


if __name__ == "__main__":
    main()
