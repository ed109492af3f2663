"""warpvol-fleet on a real local Ray cluster: a head without CPUs and three worker nodes (1 CPU each, one unit of
the custom resource `gpu_standin` each, standing in for a GPU, so one container per node at a time), 20 containers
made with the real `warpvol import` from random data, one manifest line with a wrong password.

1. Without --skip-bad, with one container locked (as a mount or another re-encryption would hold it): the
   pre-flight fails for the locked one (code 5, the exit code: it comes first) and the wrong password (code 2),
   the others are skipped and no container is written.
2. With --skip-bad: while it runs, three of the larger containers are hit mid-container (their journal exists):
   the Ray worker running one is killed with SIGKILL, the `warpvol` process of another is killed with SIGKILL,
   and the node running the third is removed (its processes killed). Every task is retried and resumes through the
   journal. Afterwards each good container exports to its original plaintext with the NEW password and has the new
   chain, the bad one still opens with its real old password and is unchanged, no journal is left, and the report
   says what happened (19 done, the victims resumed after several attempts, the bad line failed with code 2).
3. The same command again redoes nothing (all recorded done, no container file changes); after the wrong password
   file is fixed, it re-encrypts that one container alone.
4. A --resource or a manifest line's resource that no node has is refused (exit 1) instead of waiting forever.

Args: warpvol binary. Run by fleet/tests/run.sh with the fleet venv's Python.
"""
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet_fixture as fx  # noqa: E402

WV = os.path.abspath(sys.argv[1])
MiB = 1 << 20
BAD = 6                      # manifest line 7 has the wrong old password
VICTIMS = {3: "worker", 9: "warpvol", 15: "node"}
SLOW_CHAIN = "kuznyechik-serpent-camellia"  # the victims' new chain (per manifest line): the slowest cascade
BASE_ENV = dict(os.environ)


def fail(msg: str):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def log(msg: str):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def holder_of(path: str):
    """The pid of a process that has `path` open (the warpvol re-encrypting it), or None."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == path:
                        with open(f"/proc/{pid}/comm") as f:
                            if f.read().strip() == "warpvol":
                                return int(pid)
                except OSError:
                    pass
        except OSError:
            pass
    return None


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("PPid:"):
                return int(line.split()[1])
    return 0


def run_fleet(args, on_line=None):
    """Runs warpvol-fleet; returns (exit code, stdout, parsed JSON lines of stderr)."""
    cmd = [sys.executable, "-m", "warpvol_fleet.cli", "reencrypt"] + args
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=BASE_ENV)
    lines = []
    out = []
    t = threading.Thread(target=lambda: out.append(p.stdout.read()), daemon=True)
    t.start()
    for line in p.stderr:
        if line.startswith("{"):
            lines.append(json.loads(line))
        else:
            sys.stdout.write("  fleet stderr: " + line)
    rc = p.wait(timeout=600)
    t.join()
    return rc, out[0] if out else "", lines


def file_stamps(paths):
    return {p: (os.stat(p).st_mtime_ns, os.stat(p).st_size) for p in paths}


def main():
    from ray.cluster_utils import Cluster

    T = tempfile.mkdtemp(prefix="wv-fleet-", dir="/tmp")
    cluster = None
    try:
        sizes = [(1 + i % 4) * MiB for i in range(20)]
        for i in VICTIMS:
            sizes[i] = 32 * MiB
        extra = {i: {"new_encryption": SLOW_CHAIN} for i in VICTIMS}
        t0 = time.monotonic()
        plain = fx.make_fleet(WV, T, sizes, extra)
        vols = [os.path.join(T, f"c{i:02d}.hc") for i in range(20)]
        fx.write_secret(os.path.join(T, "old", f"{BAD:02d}.txt"), "not the password")
        manifest = os.path.join(T, "manifest.jsonl")
        log(f"20 containers ({sum(sizes) // MiB} MiB) made in {time.monotonic() - t0:.1f} s")

        # The nodes' warpvol runs its portable code (inherited by raylets, workers and warpvol): several seconds
        # per victim, so that the kills below land inside a container on any machine.
        os.environ["WARPVOL_CPU_PATH"] = "portable"
        small = 80 * MiB
        cluster = Cluster(initialize_head=True, connect=False, head_node_args={
            "num_cpus": 0, "object_store_memory": small, "include_dashboard": False,
            "_system_config": {"health_check_period_ms": 500, "health_check_failure_threshold": 4,
                               "health_check_initial_delay_ms": 0}})
        nodes = [cluster.add_node(num_cpus=1, resources={"gpu_standin": 1}, object_store_memory=small)
                 for _ in range(3)]
        cluster.wait_for_nodes()
        log(f"cluster up: head + {len(nodes)} nodes at {cluster.address}")
        common = ["--manifest", manifest, "--address", cluster.address, "--warpvol", WV, "--new-encryption",
                  "serpent", "--gpu-resource", "gpu_standin", "--max-retries", "4", "--busy-wait", "30",
                  "--progress-json"]
        report_file = manifest + ".fleet-report.json"

        def report():
            with open(report_file) as f:
                return json.load(f)

        # ---- 1. pre-flight failures stop everything; nothing is written ----
        before = file_stamps(vols)
        lock_fd = os.open(vols[1], os.O_RDONLY)
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        rc, out, _ = run_fleet(common)
        os.close(lock_fd)
        print(out)
        if rc != 5:
            fail(f"a locked container (line 2) and a wrong password (line 7) without --skip-bad: exit {rc} (want 5, "
                 f"the first failing line's code)")
        rows = {r["volume"]: r for r in report()["containers"]}
        if rows[vols[BAD]]["result"] != "failed" or rows[vols[BAD]]["code"] != 2:
            fail(f"the wrong password's row: {rows[vols[BAD]]}")
        if rows[vols[1]]["result"] != "failed" or rows[vols[1]]["code"] != 5 or "in use" not in rows[vols[1]]["reason"]:
            fail(f"the locked container's row: {rows[vols[1]]}")
        skipped = [v for v in vols if rows[v]["result"] == "skipped"]
        if len(skipped) != 18:
            fail(f"{len(skipped)} containers skipped (want 18)")
        if file_stamps(vols) != before or any(os.path.exists(v + ".warpvol-reencrypt") for v in vols):
            fail("a container was written although the pre-flight failed")
        log("1. pre-flight stopped the fleet: wrong password (2), locked container (5), 18 skipped, nothing written")

        # ---- 2. the run, with a worker, a warpvol and a node killed mid-container ----
        hits = {}  # index -> what was done
        stop = threading.Event()

        def killer():
            pending = dict(VICTIMS)
            while pending and not stop.is_set():
                for i, how in list(pending.items()):
                    journal = vols[i] + ".warpvol-reencrypt"
                    if not os.path.exists(journal):
                        continue
                    pid = holder_of(vols[i])
                    if pid is None:
                        continue
                    worker = parent_of(pid)
                    if how == "warpvol":
                        os.kill(pid, signal.SIGKILL)
                    elif how == "worker":
                        os.kill(worker, signal.SIGKILL)
                    else:
                        raylet = parent_of(worker)
                        node = [n for n in cluster.worker_nodes
                                if n.all_processes["raylet"][0].process.pid == raylet]
                        if not node:
                            continue
                        hits[i] = {"node_id": node[0].node_id}
                        cluster.remove_node(node[0], allow_graceful=False)
                        # A machine that dies takes its processes with it; killing the raylet alone can leave the
                        # warpvol it started running to the end of the container (seen on a loaded machine).
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                    hits.setdefault(i, {})["mid_container"] = os.path.exists(journal)
                    log(f"   killed the {how} re-encrypting c{i:02d} (journal present: {hits[i]['mid_container']})")
                    del pending[i]
                time.sleep(0.01)

        k = threading.Thread(target=killer, daemon=True)
        k.start()
        t0 = time.monotonic()
        rc, out, events = run_fleet(common + ["--skip-bad"])
        stop.set()
        k.join()
        print(out)
        log(f"2. fleet run: exit {rc} in {time.monotonic() - t0:.1f} s")
        if rc != 2:
            fail(f"--skip-bad with one wrong password: exit {rc} (want 2)")
        if set(hits) != set(VICTIMS) or not all(h["mid_container"] for h in hits.values()):
            fail(f"not every kill landed inside a container: {hits}")
        rep = report()
        rows = {r["volume"]: r for r in rep["containers"]}
        s = rep["summary"]
        if (s["done"], s["failed"], s["skipped"]) != (19, 1, 0):
            fail(f"summary {s}")
        bad = rows[vols[BAD]]
        if bad["result"] != "failed" or bad["code"] != 2 or "wrong password" not in bad["reason"]:
            fail(f"the wrong password's row: {bad}")
        for i, how in VICTIMS.items():
            r = rows[vols[i]]
            if r["result"] != "done" or not r["resumed"] or r["attempts"] < 2:
                fail(f"victim c{i:02d} ({how}): {r}")
            if r["new_chain"] != "Kuznyechik-Serpent-Camellia":
                fail(f"victim c{i:02d}: new chain {r['new_chain']}")
        if rows[vols[15]]["node_id"] == hits[15]["node_id"]:
            fail("the container of the removed node is reported done by that node")
        for v in vols:
            r = rows[v]
            if r["result"] == "done" and (not r["node"] or r["old_chain"] != "AES" or r["wall_seconds"] is None):
                fail(f"report row without node, chain or duration: {r}")
        kinds = {e.get("kind") for e in events}
        retries = {e["volume"] for e in events if e.get("event") == "retry"}
        fleet_lines = [e for e in events if e.get("kind") == "fleet"]
        if kinds != {"fleet", "container"} or not fleet_lines:
            fail(f"progress JSON kinds {kinds}")
        for key in ("done", "running", "failed", "queued", "bytes_done", "bytes_total", "bytes_per_second", "eta_s"):
            if key not in fleet_lines[-1]:
                fail(f"fleet progress line without {key}: {fleet_lines[-1]}")
        if fleet_lines[-1]["done"] != 19 or fleet_lines[-1]["bytes_done"] != fleet_lines[-1]["bytes_total"]:
            fail(f"last fleet progress line: {fleet_lines[-1]}")
        if not {vols[i] for i in VICTIMS} <= retries:
            fail(f"no retry events for every victim: {retries}")
        # No secret in what the fleet wrote or said (passwords are "old password N", "new password N", ...).
        said = open(os.path.join(T, "manifest.jsonl.fleet-state.jsonl")).read() + open(report_file).read() + out + \
            json.dumps(events)
        for secret in ("old password", "new password", "not the password"):
            if secret in said:
                fail(f"a password ('{secret} ...') reached the state file, the report or the progress lines")

        # Every good container: the original plaintext with the new password, the new chain; the bad one as it was.
        for i, v in enumerate(vols):
            if os.path.exists(v + ".warpvol-reencrypt"):
                fail(f"journal left behind for c{i:02d}")
            if i == BAD:
                fx.write_secret(os.path.join(T, "old-real.txt"), f"old password {i}")
                if fx.export_with(WV, v, os.path.join(T, "old-real.txt"), BASE_ENV) != plain[v]:
                    fail("the container with the wrong password in the manifest changed")
                continue
            got = fx.export_with(WV, v, os.path.join(T, "new", f"{i:02d}.txt"), BASE_ENV)
            if got != plain[v]:
                fail(f"c{i:02d} does not export to its original plaintext with the new password")
            want = SLOW_CHAIN if i in VICTIMS else "serpent"
            if fx.info_chain(WV, v, os.path.join(T, "new", f"{i:02d}.txt"), BASE_ENV) != want:
                fail(f"c{i:02d} is not {want}")
            if fx.export_with(WV, v, os.path.join(T, "old", f"{i:02d}.txt"), BASE_ENV) is not None:
                fail(f"c{i:02d} still opens with the old password")
        log("   19 containers export their original plaintext with the new password; the bad one is unchanged")

        # ---- 3. the same command again: nothing redone; then only the fixed line ----
        before = file_stamps(vols)
        rc, out, _ = run_fleet(common + ["--skip-bad"])
        print(out)
        s = report()["summary"]
        if rc != 2 or (s["already-done"], s["failed"], s["done"]) != (19, 1, 0) or file_stamps(vols) != before:
            fail(f"rerun: exit {rc}, summary {s}, files changed: {file_stamps(vols) != before}")
        fx.write_secret(os.path.join(T, "old", f"{BAD:02d}.txt"), f"old password {BAD}")
        rc, out, _ = run_fleet(common + ["--skip-bad"])
        print(out)
        s = report()["summary"]
        after = file_stamps(vols)
        changed = [v for v in vols if after[v] != before[v]]
        if rc != 0 or (s["already-done"], s["done"]) != (19, 1) or changed != [vols[BAD]]:
            fail(f"rerun after the fix: exit {rc}, summary {s}, changed {changed}")
        if fx.export_with(WV, vols[BAD], os.path.join(T, "new", f"{BAD:02d}.txt"), BASE_ENV) != plain[vols[BAD]]:
            fail("the fixed container does not export its plaintext with the new password")
        log("3. reruns: nothing redone; after the fix only that container was re-encrypted")

        # ---- 4. resources no node has: refused, not waited for forever ----
        one = os.path.join(T, "one.jsonl")
        line = {"volume": "c00.hc", "password_file": "new/00.txt", "pim": 1, "no_hidden_volume": True}
        with open(one, "w") as f:
            f.write(json.dumps(line) + "\n")
        rc, out, _ = run_fleet(["--manifest", one] + common[2:] + ["--resource", "nas-z=1"])
        if rc != 1:
            fail(f"--resource that no node has: exit {rc} (want 1)")
        with open(one, "w") as f:
            f.write(json.dumps(dict(line, resources={"nas-z": 1})) + "\n")
        rc, out, _ = run_fleet(["--manifest", one] + common[2:])
        rows = json.load(open(one + ".fleet-report.json"))["containers"]
        if rc != 1 or rows[0]["result"] != "failed" or "nas-z" not in rows[0]["reason"]:
            fail(f"a manifest line asking for a resource no node has: exit {rc}, {rows}")
        log("4. resources no node has are refused before anything runs")
        print("PASS")
    finally:
        if cluster is not None:
            cluster.shutdown()
        shutil.rmtree(T, ignore_errors=True)


if __name__ == "__main__":
    main()
