"""Containers for the fleet tests and bench/fleet.sh: random plaintext imported with the real `warpvol import`
(AES, SHA-512, PIM 1: the cheapest KDF warpvol takes), password files (mode 0600), a manifest, and the check that a
container exports to its original plaintext with its new credentials."""
import json
import os
import subprocess
from typing import Dict, List, Optional

PIM = 1


def write_secret(path: str, text: str):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text + "\n")


def make_container(warpvol: str, folder: str, name: str, size: int, password: str, env=None) -> bytes:
    """A container whose data area is `size` random bytes; returns them."""
    data = os.urandom(size)
    raw = os.path.join(folder, name + ".raw")
    with open(raw, "wb") as f:
        f.write(data)
    subprocess.run([warpvol, "import", raw, os.path.join(folder, name + ".hc"), "--password-stdin", "--pim", str(PIM),
                    "--hash", "sha512", "-q"], input=password + "\n", text=True, check=True, env=env,
                   stdout=subprocess.DEVNULL)
    os.unlink(raw)
    return data


def make_fleet(warpvol: str, folder: str, sizes: List[int], extra: Optional[Dict[int, dict]] = None,
               env=None) -> Dict[str, bytes]:
    """Containers c00.hc ... with passwords in old/NN.txt and new/NN.txt, and folder/manifest.jsonl (paths
    relative to it). `extra` adds keys to given lines. Returns {absolute volume path: plaintext}."""
    os.makedirs(os.path.join(folder, "old"), mode=0o700, exist_ok=True)
    os.makedirs(os.path.join(folder, "new"), mode=0o700, exist_ok=True)
    plain = {}
    lines = []
    for i, size in enumerate(sizes):
        name = f"c{i:02d}"
        write_secret(os.path.join(folder, "old", f"{i:02d}.txt"), f"old password {i}")
        write_secret(os.path.join(folder, "new", f"{i:02d}.txt"), f"new password {i}")
        plain[os.path.join(folder, name + ".hc")] = make_container(warpvol, folder, name, size, f"old password {i}",
                                                                  env)
        line = {"volume": name + ".hc", "password_file": f"old/{i:02d}.txt", "pim": PIM,
                "new_password_file": f"new/{i:02d}.txt", "new_pim": PIM, "no_hidden_volume": True}
        line.update((extra or {}).get(i, {}))
        lines.append(json.dumps(line))
    with open(os.path.join(folder, "manifest.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return plain


def export_with(warpvol: str, volume: str, password_file: str, env=None) -> Optional[bytes]:
    """The container's plaintext through `warpvol export` with these credentials, or None when it does not open."""
    out = volume + ".export"
    with open(password_file, "rb") as pw:
        r = subprocess.run([warpvol, "export", volume, out, "--password-stdin", "--pim", str(PIM), "--hash", "sha512",
                            "-q", "--force"], stdin=pw, capture_output=True, env=env)
    if r.returncode != 0:
        return None
    with open(out, "rb") as f:
        data = f.read()
    os.unlink(out)
    return data


def info_chain(warpvol: str, volume: str, password_file: str, env=None) -> Optional[str]:
    with open(password_file, "rb") as pw:
        r = subprocess.run([warpvol, "info", volume, "--password-stdin", "--pim", str(PIM), "--json"], stdin=pw,
                           capture_output=True, text=True, env=env)
    return json.loads(r.stdout).get("encryption_cli") if r.returncode == 0 else None
