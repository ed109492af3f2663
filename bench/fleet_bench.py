"""warpvol-fleet throughput: the fleet test's 20 containers (17 of 1-4 MiB, 3 of 32 MiB; AES, PBKDF2-SHA-512 with
PIM 1) re-encrypted to Serpent on a local Ray cluster of 1 and of 3 nodes (1 CPU each; a head without CPUs),
next to the single-machine reference measured in the same run: one `warpvol reencrypt --credentials-file MANIFEST
--jobs 2` (the manifest is in its credentials-file format). Prints, per configuration and round, the re-encryption
phase (containers per minute, aggregate GB/s = 10^9 bytes/s), the pre-flight and the whole command, then medians.

Args: warpvol binary, rounds (default 3). Run by bench/fleet.sh with the fleet venv's Python.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fleet", "tests"))
import fleet_fixture as fx  # noqa: E402

WV = os.path.abspath(sys.argv[1])
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
MiB = 1 << 20
SIZES = [32 * MiB if i in (3, 9, 15) else (1 + i % 4) * MiB for i in range(20)]


def fresh(folder: str) -> str:
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    fx.make_fleet(WV, folder, SIZES)
    m = os.path.join(folder, "manifest.jsonl")
    os.chmod(m, 0o600)
    return m


def fleet_round(folder: str, address: str) -> dict:
    m = fresh(folder)
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "warpvol_fleet.cli", "reencrypt", "--manifest", m, "--address", address,
                        "--warpvol", WV, "--new-encryption", "serpent", "--gpus-per-task", "0", "--quiet"],
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        sys.exit(f"warpvol-fleet failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    s = json.load(open(m + ".fleet-report.json"))["summary"]
    return {"run_s": s["run_seconds"], "preflight_s": s["preflight_seconds"], "command_s": wall,
            "per_min": s["done"] / s["run_seconds"] * 60, "gbps": s["bytes"] / s["run_seconds"] / 1e9,
            "per_min_all": s["done"] / wall * 60, "nodes_used": s["nodes"]}


def batch_round(folder: str) -> dict:
    m = fresh(folder)
    t0 = time.monotonic()
    r = subprocess.run([WV, "reencrypt", "--credentials-file", m, "--new-encryption", "serpent", "--jobs", "2",
                        "--json", "-q"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       cwd=folder)  # warpvol reads relative paths of a credentials file from its working folder
    wall = time.monotonic() - t0
    if r.returncode != 0:
        sys.exit(f"warpvol reencrypt failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return {"run_s": wall, "preflight_s": 0.0, "command_s": wall, "per_min": 20 / wall * 60,
            "gbps": sum(SIZES) / wall / 1e9, "per_min_all": 20 / wall * 60, "nodes_used": 1}


def show(name: str, rows):
    for i, r in enumerate(rows, 1):
        print(f"  {name} round {i}: re-encryption {r['run_s']:.2f} s = {r['per_min']:.0f} containers/min, "
              f"{r['gbps']:.3f} GB/s; pre-flight {r['preflight_s']:.2f} s; whole command {r['command_s']:.2f} s "
              f"({r['per_min_all']:.0f} containers/min); nodes used {r['nodes_used']}")
    med = {k: statistics.median(r[k] for r in rows) for k in ("per_min", "gbps", "preflight_s", "command_s",
                                                              "per_min_all")}
    print(f"{name}: median {med['per_min']:.0f} containers/min, {med['gbps']:.3f} GB/s in the re-encryption phase; "
          f"pre-flight {med['preflight_s']:.2f} s; whole command {med['command_s']:.2f} s "
          f"({med['per_min_all']:.0f} containers/min)", flush=True)


def main():
    from ray.cluster_utils import Cluster
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    field = {l.split(":", 1)[0].strip(): l.split(":", 1)[1].strip() for l in cpu.splitlines() if ":" in l}
    model = (f"{field.get('Model name', '?')} (family {field.get('CPU family', '?')} model {field.get('Model', '?')}"
             f", {field.get('Hypervisor vendor', 'no')} hypervisor)")
    print(f"CPU: {model}, {os.cpu_count()} logical CPUs; {len(SIZES)} containers, {sum(SIZES) / MiB:.0f} MiB, "
          f"AES -> Serpent, PIM 1; {ROUNDS} rounds", flush=True)
    T = tempfile.mkdtemp(prefix="wv-fleet-bench-", dir="/tmp")
    try:
        show("warpvol reencrypt --jobs 2 (one process, reference)", [batch_round(T) for _ in range(ROUNDS)])
        for n in (1, 3):
            cluster = Cluster(initialize_head=True, connect=False, head_node_args={
                "num_cpus": 0, "object_store_memory": 80 * MiB, "include_dashboard": False})
            for _ in range(n):
                cluster.add_node(num_cpus=1, object_store_memory=80 * MiB)
            cluster.wait_for_nodes()
            try:
                show(f"warpvol-fleet, {n} node(s) x 1 CPU", [fleet_round(T, cluster.address) for _ in range(ROUNDS)])
            finally:
                cluster.shutdown()
    finally:
        shutil.rmtree(T, ignore_errors=True)


if __name__ == "__main__":
    main()
