"""The manifest: one container per JSON line, in ``warpvol reencrypt --credentials-file`` format plus fleet keys.

Parsed and checked on the driver (one clear line per problem, with the line number), so that workers only ever
receive complete, absolute, secret-free entries.
"""
import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

# Keys warpvol's credentials file takes that are paths or numbers (never secrets), passed on to warpvol.
CREDENTIAL_KEYS = (
    "volume", "password_file", "keyfiles", "pim", "new_password_file", "new_keyfiles", "new_pim", "no_keyfiles",
    "hidden_password_file", "hidden_keyfiles", "hidden_pim", "no_hidden_volume",
)
# Keys of the credentials-file format that hold a password itself: refused (see the package docstring).
INLINE_SECRET_KEYS = ("password", "new_password", "hidden_password")
# Keys only the fleet reads.
FLEET_KEYS = ("new_encryption", "new_hash", "resources")

PATH_KEYS = ("volume", "password_file", "new_password_file", "hidden_password_file")
PATH_LIST_KEYS = ("keyfiles", "new_keyfiles", "hidden_keyfiles")


class ManifestError(Exception):
    """A manifest that cannot be used; the message names the file and line."""


@dataclass
class Entry:
    line: int                      # 1-based line number in the manifest
    volume: str                    # absolute path
    credentials: Dict[str, object]  # CREDENTIAL_KEYS present on the line, paths made absolute
    new_encryption: Optional[str] = None
    new_hash: Optional[str] = None
    resources: Dict[str, float] = field(default_factory=dict)

    def fingerprint(self, defaults: Dict[str, Optional[str]]) -> str:
        """Identifies what re-encrypting this container means (the line and the settings that apply to it), so that
        a rerun with other settings is a new job, not 'already done'."""
        what = {"credentials": self.credentials, "new_encryption": self.new_encryption or defaults.get("new_encryption"),
                "new_hash": self.new_hash or defaults.get("new_hash")}
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]

    def to_task(self) -> dict:
        """What a worker needs (no secrets: paths and numbers only)."""
        return {"line": self.line, "volume": self.volume, "credentials": dict(self.credentials),
                "new_encryption": self.new_encryption, "new_hash": self.new_hash}


def _absolute(base: str, p: str) -> str:
    return os.path.normpath(p if os.path.isabs(p) else os.path.join(base, p))


def parse_line(text: str, line: int, base: str, where: str) -> Entry:
    try:
        obj = json.loads(text)
    except ValueError:
        raise ManifestError(f"{where}: not a JSON object")
    if not isinstance(obj, dict):
        raise ManifestError(f"{where}: not a JSON object")
    for k in obj:
        if k in INLINE_SECRET_KEYS:
            raise ManifestError(
                f"{where}: \"{k}\" (a password in the manifest) is refused: manifest lines travel through Ray's "
                f"object store; put the password in a file readable on the nodes and give \"{k}_file\"")
        if k not in CREDENTIAL_KEYS and k not in FLEET_KEYS:
            raise ManifestError(f"{where}: unknown key \"{k}\"")
    if not isinstance(obj.get("volume"), str) or not obj["volume"]:
        raise ManifestError(f"{where}: \"volume\" (a path) is required")
    if "password_file" not in obj and not obj.get("keyfiles"):
        raise ManifestError(f"{where}: \"password_file\" or \"keyfiles\" is required")
    creds: Dict[str, object] = {}
    for k in CREDENTIAL_KEYS:
        if k not in obj:
            continue
        v = obj[k]
        if k in PATH_KEYS:
            if not isinstance(v, str) or not v:
                raise ManifestError(f"{where}: \"{k}\" must be a path")
            v = _absolute(base, v)
        elif k in PATH_LIST_KEYS:
            if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
                raise ManifestError(f"{where}: \"{k}\" must be a list of paths")
            v = [_absolute(base, x) for x in v]
        elif k in ("pim", "new_pim", "hidden_pim"):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ManifestError(f"{where}: \"{k}\" must be a number >= 0")
        elif not isinstance(v, bool):
            raise ManifestError(f"{where}: \"{k}\" must be true or false")
        creds[k] = v
    e = Entry(line=line, volume=creds["volume"], credentials=creds)
    for k in ("new_encryption", "new_hash"):
        if k in obj:
            if not isinstance(obj[k], str) or not obj[k]:
                raise ManifestError(f"{where}: \"{k}\" must be a name, e.g. \"serpent\"")
            setattr(e, k, obj[k])
    if "resources" in obj:
        r = obj["resources"]
        if not isinstance(r, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
                                              for v in r.values()):
            raise ManifestError(f"{where}: \"resources\" must map resource names to positive numbers")
        e.resources = {str(k): float(v) for k, v in r.items()}
    return e


def read_manifest(path: str) -> List[Entry]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as ex:
        raise ManifestError(f"cannot read the manifest {path}: {ex.strerror}")
    base = os.path.dirname(os.path.abspath(path))
    entries: List[Entry] = []
    seen: Dict[str, int] = {}
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        e = parse_line(text, n, base, f"{path} line {n}")
        if e.volume in seen:
            raise ManifestError(f"{path} line {n}: {e.volume} is already listed on line {seen[e.volume]}")
        seen[e.volume] = n
        entries.append(e)
    if not entries:
        raise ManifestError(f"{path}: no containers listed")
    return entries
