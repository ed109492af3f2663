#!/usr/bin/env python3
"""Independent VeraCrypt reader and writer: the oracle for containers warpvol writes and re-encrypts.

Decrypts headers and data areas with Botan 2 (python3-botan) and Python's hashlib, following only
docs/format-spec.md (§2 layouts, §3 header, §4 keyfiles not used, §5 KDF, §6 XTS/cascades), never warpvol's code:
a bug shared by warpvol's writer and its reader cannot pass here.

  judge WARPVOL_BINARY WORKDIR [SOURCE_DIR]
      Has warpvol write containers and checks them: every chain Botan 2 has ciphers for (all except those with
      Kuznyechik) x the PBKDF2 PRFs (SHA-512/SHA-256 via hashlib, BLAKE2s-256 via hashlib HMAC,
      Whirlpool/Streebog via Botan), Argon2id (Botan pwdhash) for one chain; normal volumes (import: data must
      decrypt to the raw image + zero padding; create: the fill must not decrypt to zeros), both backup headers,
      fake hidden headers, hidden volumes (§2.3), change, header backup files (§2.7), sector size 4096.
      Exit 0 ok, 1 failure.
  create PATH --size BYTES --password PW [--pim N] [--seed S]
      Writes an AES / SHA-512 VeraCrypt container (V2 layout: header at 0, backup header at H - 131072, data at
      131072) with seeded pseudo-random plaintext, for warpvol to re-encrypt; prints the plaintext's sha256.
  verify PATH --password PW [--pim N]
      Opens an AES / SHA-512 container (what warpvol re-encrypted to) and prints the sha256 of its plaintext data
      area; exit 3 if the header does not open, 4 if it opens but is not a finished VeraCrypt header.
  create-system DRIVE --password PW --start SECTOR --sectors N [--encrypted BYTES] [--seed S]
      Writes the image of a system-encrypted drive (§2.5): an MBR whose partition 1 is [SECTOR, + N sectors), the
      AES / SHA-512 system header (flag bit 0, key scope = partition 1) at sector 62, the partition's seeded
      pseudo-random plaintext encrypted over its first BYTES (default: all: a finished encryption) with data units
      numbered from the drive's start, the rest left as plaintext; prints the sha256 of the partition's plaintext.

Every command exits 77 when python3-botan is missing.
"""
import argparse
import hashlib
import hmac
import os
import struct
import subprocess
import sys
import zlib

try:
    import botan2
except ImportError:
    print("SKIP: python3-botan (botan2 module) not available")
    sys.exit(77)

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


# §6.3: VeraCrypt name -> encryption order (first applied first). Botan names per cipher.
BOTAN = {"AES": "AES-256", "Serpent": "Serpent", "Twofish": "Twofish", "Camellia": "Camellia-256"}
CHAINS = {
    "aes": ["AES"], "serpent": ["Serpent"], "twofish": ["Twofish"], "camellia": ["Camellia"],
    "aes-twofish": ["Twofish", "AES"], "aes-twofish-serpent": ["Serpent", "Twofish", "AES"],
    "serpent-aes": ["AES", "Serpent"], "serpent-twofish-aes": ["AES", "Twofish", "Serpent"],
    "twofish-serpent": ["Serpent", "Twofish"], "camellia-serpent": ["Serpent", "Camellia"],
}
PRFS = ["sha512", "sha256", "blake2s", "whirlpool", "streebog"]


def pbkdf2(prf, password, salt, iterations, length):
    """PBKDF2-HMAC (§5.1); only as many blocks as `length` needs (prefix-stable)."""
    if prf in ("sha512", "sha256"):
        return hashlib.pbkdf2_hmac(prf, password, salt, iterations, length)
    if prf == "blake2s":
        base = hmac.new(password, digestmod=hashlib.blake2s)  # keyed once, copied per message
        out = b""
        block = 1
        while len(out) < length:
            m = base.copy()
            m.update(salt + struct.pack(">I", block))
            u = m.digest()
            t = int.from_bytes(u, "big")
            for _ in range(iterations - 1):
                m = base.copy()
                m.update(u)
                u = m.digest()
                t ^= int.from_bytes(u, "big")
            out += t.to_bytes(32, "big")
            block += 1
        return out[:length]
    name = {"whirlpool": "Whirlpool", "streebog": "Streebog-512"}[prf]
    assert b"\0" not in password
    return botan2.pbkdf("PBKDF2(%s)" % name, password.decode("latin-1"), length, iterations, salt)[2]


def argon2id(password, salt, t_cost, m_kib):
    # §5.4: Argon2id v1.3, lanes 1, 192-byte tag. Botan pwdhash params: memory (KiB), iterations, parallelism.
    from ctypes import create_string_buffer
    out = create_string_buffer(192)
    rc = botan2._DLL.botan_pwdhash(b"Argon2id", m_kib, t_cost, 1, out, 192, password, len(password), salt,
                                   len(salt))
    if rc != 0:
        raise RuntimeError("botan_pwdhash Argon2id failed: %d" % rc)
    return out.raw


def iterations(prf, pim):
    return 15000 + 1000 * pim if pim > 0 else 500000


class Chain:
    """A chain keyed once (§6.3): successive XTS passes, cipher i with key bytes [32i,32i+32) and [K+32i,K+32i+32);
    each pass tweaks with LE64(unit) || 0^8 (§6.1)."""

    def __init__(self, chain, key_material):
        order = CHAINS[chain]
        k = 32 * len(order)
        self.layers = []
        for i, name in enumerate(order):
            key = key_material[32 * i:32 * i + 32] + key_material[k + 32 * i:k + 32 * i + 32]
            pair = []
            for encrypt in (True, False):
                c = botan2.SymmetricCipher(BOTAN[name] + "/XTS", encrypt=encrypt)
                c.set_key(key)
                pair.append(c)
            self.layers.append(pair)

    def crypt(self, unit, data, encrypt):
        """One 512-byte data unit (or the 448 encrypted bytes of a header) numbered `unit`."""
        tweak = struct.pack("<QQ", unit, 0)
        for enc, dec in (self.layers if encrypt else reversed(self.layers)):
            c = enc if encrypt else dec
            c.start(tweak)
            data = c.finish(data)
        return data


def decrypt_header(raw512, chain, prf, password, pim, argon=None, dk=None):
    """§3.4: returns the 512 decrypted bytes (salt + plaintext) or None when the checks fail. dk: header key
    material already derived for this salt (at least 2K bytes)."""
    salt = raw512[:64]
    need = 64 * len(CHAINS[chain])
    if dk is not None:
        pass
    elif prf == "argon2":
        dk = argon2id(password, salt, *argon)
    else:
        dk = pbkdf2(prf, password, salt, iterations(prf, pim), need)
    plain = Chain(chain, dk[:need]).crypt(0, raw512[64:512], False)
    h = salt + plain
    if h[64:68] != b"VERA":
        return None
    if zlib.crc32(h[64:252]) != struct.unpack(">I", h[252:256])[0]:
        return None
    if zlib.crc32(h[256:512]) != struct.unpack(">I", h[72:76])[0]:
        return None
    return h


def fields(h):
    return {
        "version": struct.unpack(">H", h[68:70])[0], "required": struct.unpack(">H", h[70:72])[0],
        "reserved76": h[76:92], "hidden_size": struct.unpack(">Q", h[92:100])[0],
        "volume_size": struct.unpack(">Q", h[100:108])[0], "start": struct.unpack(">Q", h[108:116])[0],
        "length": struct.unpack(">Q", h[116:124])[0], "flags": struct.unpack(">I", h[124:128])[0],
        "sector": struct.unpack(">I", h[128:132])[0], "reserved132": h[132:252], "keys": h[256:512],
    }


def check_header_fields(tag, f, chain, expect):
    k2 = 64 * len(CHAINS[chain])
    check(f["version"] == 5, tag + ": header version 5")
    check(f["required"] == 0x010B, tag + ": required program version 0x010b")
    check(f["reserved76"] == bytes(16) and f["reserved132"] == bytes(120), tag + ": reserved fields zero")
    check(f["keys"][k2:] == bytes(256 - k2), tag + ": key area zero after 2K bytes")
    check(f["keys"][:k2 // 2] != f["keys"][k2 // 2:k2], tag + ": primary key half != secondary half")
    for name, value in expect.items():
        check(f[name] == value, "%s: %s = %r, expected %r" % (tag, name, f[name], value))


def decrypt_area(data, chain, master, offset, length):
    keyed = Chain(chain, master)
    out = bytearray()
    for pos in range(offset, offset + length, 512):
        out += keyed.crypt(pos // 512, data[pos:pos + 512], False)
    return bytes(out)


def run(binary, args, stdin):
    p = subprocess.run([binary] + args, input=stdin.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        FAILS.append("warpvol %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
        print("FAIL:", FAILS[-1])
    return p.returncode


def verify_normal(path, chain, prf, password, pim, sector=512, raw=None, argon=None):
    data = open(path, "rb").read()
    H = len(data)
    tag = "%s %s/%s" % (os.path.basename(path), chain, prf)
    hp = decrypt_header(data[0:512], chain, prf, password, pim, argon)
    hb = decrypt_header(data[H - 131072:H - 131072 + 512], chain, prf, password, pim, argon)
    check(hp is not None, tag + ": primary header decrypts")
    check(hb is not None, tag + ": backup header at H-131072 decrypts")
    if hp is None or hb is None:
        return None
    fp, fb = fields(hp), fields(hb)
    expect = {"hidden_size": 0, "volume_size": H - 262144, "start": 131072, "length": H - 262144, "flags": 0,
              "sector": sector}
    check_header_fields(tag + " primary", fp, chain, expect)
    check_header_fields(tag + " backup", fb, chain, expect)
    check(fp["keys"] == fb["keys"], tag + ": same master keys in both headers")
    check(hp[:64] != hb[:64], tag + ": different salts")
    for off in (65536, H - 65536):  # fake hidden headers: random, do not decrypt
        check(decrypt_header(data[off:off + 512], chain, prf, password, pim, argon) is None,
              tag + ": fake hidden header at %d does not decrypt" % off)
    master = fp["keys"][:64 * len(CHAINS[chain])]
    if raw is not None:
        plain = decrypt_area(data, chain, master, 131072, H - 262144)
        check(plain[:len(raw)] == raw, tag + ": data area decrypts to the raw image")
        check(plain[len(raw):] == bytes(len(plain) - len(raw)), tag + ": padding decrypts to zeros")
    else:
        plain = decrypt_area(data, chain, master, 131072, 4096)
        check(plain.count(0) < 256, tag + ": filled data area does not decrypt to zeros (throw-away key)")
    return master


def self_check(src_vectors):
    """The oracle's own primitives against published/independent vectors before judging warpvol."""
    import json
    # XTS-AES-256, IEEE 1619 vector 10 style check via the spec's tc-play volume (§10): header of test_sha512.vc.
    vols = json.load(open(os.path.join(src_vectors, "volumes_tcplay.json")))["volumes"]
    for v in vols:
        if v["prf"] not in ("HMAC-SHA-512", "HMAC-Whirlpool", "HMAC-SHA-256"):
            continue
        prf = {"HMAC-SHA-512": "sha512", "HMAC-Whirlpool": "whirlpool", "HMAC-SHA-256": "sha256"}[v["prf"]]
        raw = bytes.fromhex(v["primary_header"]["header_512_hex"])
        pw = bytes.fromhex(v["password_hex"])
        dk = pbkdf2(prf, pw, raw[:64], 500000, 128)
        ok = any(decrypt_header(raw, ch, prf, pw, 0, dk=dk) is not None
                 for ch in ("aes", "serpent", "twofish", "aes-twofish", "serpent-aes", "twofish-serpent"))
        check(ok, "oracle self-check: tc-play %s primary header decrypts" % v["file"])
    names = {"HMAC-SHA-512": "sha512", "HMAC-SHA-256": "sha256", "HMAC-BLAKE2s-256": "blake2s",
             "HMAC-Whirlpool": "whirlpool", "HMAC-Streebog-512": "streebog"}
    for v in json.load(open(os.path.join(src_vectors, "pbkdf2.json")))["vectors"]:
        if v["prf"] not in names or v["iterations"] > 100000:
            continue
        pw = bytes.fromhex(v["password_hex"])
        if b"\0" in pw:
            continue
        got = pbkdf2(names[v["prf"]], pw, bytes.fromhex(v["salt_hex"]), v["iterations"], v["dklen"])
        check(got.hex() == v["dk_hex"], "oracle self-check: PBKDF2 %s vector (%d iterations)" % (v["prf"],
                                                                                             v["iterations"]))
    a = json.load(open(os.path.join(src_vectors, "argon2_veracrypt_kdf_selfcomputed.json")))["header_key_vectors"]
    for v in a:
        if v["pim"] != 1 or v["taglen"] != 192:
            continue
        got = argon2id(bytes.fromhex(v["password_hex"]), bytes.fromhex(v["salt_hex"]), v["t_cost"], v["m_cost_kib"])
        check(got.hex() == v["derived_key_hex"], "oracle self-check: Argon2id header key vector (PIM 1)")


def judge(binary, work, src):
    self_check(os.path.join(src, "testvectors"))
    if FAILS:
        print("oracle self-check failed: not judging warpvol")
        return 1
    os.makedirs(work, exist_ok=True)
    raw = bytes((i * 7 + (i >> 9)) & 0xFF for i in range(40000))
    raw_path = os.path.join(work, "raw.img")
    open(raw_path, "wb").write(raw)
    n = 0
    for chain in CHAINS:
        for prf in PRFS:
            pw = "oracle-%s-%s" % (chain, prf)
            out = os.path.join(work, "%s-%s.hc" % (chain, prf))
            if os.path.exists(out):
                os.unlink(out)
            if run(binary, ["import", raw_path, out, "--encryption", chain, "--hash", prf, "--pim", "1",
                            "--password-stdin", "--non-interactive"], pw + "\n") == 0:
                verify_normal(out, chain, prf, pw.encode(), 1, raw=raw)
                n += 1
    # Argon2id (PIM 1: t=3, 64 MiB), one chain.
    out = os.path.join(work, "argon.hc")
    if run(binary, ["create", "--filesystem", "none", out, "--size", "299008", "--encryption", "serpent-aes", "--hash", "argon2", "--pim",
                    "1", "--password-stdin"], "oracle-argon\n") == 0:
        verify_normal(out, "serpent-aes", "argon2", b"oracle-argon", 1, argon=(3, 65536))
        n += 1
    # Full create (fill), sector size 4096.
    out = os.path.join(work, "s4k.hc")
    if run(binary, ["create", "--filesystem", "none", out, "--size", "1M", "--encryption", "aes-twofish-serpent", "--sector-size", "4096",
                    "--pim", "1", "--password-stdin"], "oracle-4k\n") == 0:
        verify_normal(out, "aes-twofish-serpent", "sha512", b"oracle-4k", 1, sector=4096)
        n += 1
    # Hidden volume (§2.3): 2 MiB outer, hidden --size 600K.
    out = os.path.join(work, "outer.hc")
    if run(binary, ["create", "--filesystem", "none", out, "--size", "2M", "--quick", "--pim", "1", "--password-stdin"], "oracle-outer\n") == 0 \
            and run(binary, ["create", "--filesystem", "none", out, "--type", "hidden", "--trust-size", "--size", "600K", "--encryption", "twofish",
                             "--hash", "whirlpool", "--pim", "1", "--password-stdin"], "oracle-hidden\n") == 0:
        data = open(out, "rb").read()
        H, S = len(data), 600 * 1024
        for off, tag in ((65536, "hidden header"), (H - 65536, "hidden backup header")):
            h = decrypt_header(data[off:off + 512], "twofish", "whirlpool", b"oracle-hidden", 1)
            check(h is not None, tag + " decrypts")
            if h is not None:
                D = S - 4096
                check_header_fields(tag, fields(h), "twofish",
                                    {"hidden_size": D, "volume_size": D, "start": H - 131072 - S, "length": D,
                                     "flags": 0, "sector": 512})
        hp = decrypt_header(data[0:512], "aes", "sha512", b"oracle-outer", 1)
        check(hp is not None, "outer header still decrypts after hidden creation")
        n += 1
    # change: the new password decrypts both headers, master keys unchanged.
    out = os.path.join(work, "aes-sha512.hc")
    before = verify_normal(out, "aes", "sha512", b"oracle-aes-sha512", 1, raw=raw)
    if run(binary, ["change", out, "--pim", "1", "--password-stdin", "--new-password-stdin", "--new-pim", "3",
                    "--new-hash", "streebog"], "oracle-aes-sha512\noracle-changed\n") == 0:
        after = verify_normal(out, "aes", "streebog", b"oracle-changed", 3, raw=raw)
        check(before is not None and before == after, "change keeps the master keys")
        check(decrypt_header(open(out, "rb").read()[:512], "aes", "sha512", b"oracle-aes-sha512", 1) is None,
              "old password no longer decrypts")
        n += 1
    # Header backup file (§2.7): normal slot at 0 decrypts with a fresh salt; hidden slot random.
    bk = os.path.join(work, "aes-sha512.hdr")
    if os.path.exists(bk):
        os.unlink(bk)
    if run(binary, ["backup-headers", out, bk, "--pim", "3", "--password-stdin"], "oracle-changed\n") == 0:
        b = open(bk, "rb").read()
        check(len(b) == 131072, "backup file is 128 KiB")
        h = decrypt_header(b[:512], "aes", "streebog", b"oracle-changed", 3)
        check(h is not None and fields(h)["keys"][:64] == before, "backup file's normal slot holds the header")
        check(decrypt_header(b[65536:65536 + 512], "aes", "streebog", b"oracle-changed", 3) is None,
              "backup file's hidden slot is random")
        check(b[:64] != open(out, "rb").read()[:64], "backup header has a fresh salt")
        n += 1
    print("oracle: %d containers checked, %d failures" % (n, len(FAILS)))
    return 1 if FAILS else 0



# The re-encryption tests' containers: AES / SHA-512, V2 layout (§2.1), written and read here.
UNIT = 512
DATA_OFFSET = 131072


def header_plain(volume_size, master_key):
    """Bytes 64..511 of a finished VeraCrypt header (§3.2): a normal volume whose data starts at DATA_OFFSET."""
    key_area = master_key + bytes(256 - len(master_key))
    h = bytearray(448)
    h[0:4] = b"VERA"
    struct.pack_into(">HH", h, 4, 5, 0x010B)
    struct.pack_into(">I", h, 8, zlib.crc32(key_area))
    struct.pack_into(">QQQQ", h, 28, 0, volume_size, DATA_OFFSET, volume_size)
    struct.pack_into(">II", h, 60, 0, 512)
    struct.pack_into(">I", h, 188, zlib.crc32(bytes(h[0:188])))
    h[192:448] = key_area
    return bytes(h)


def seal(plain448, password, pim):
    salt = os.urandom(64)
    hk = pbkdf2("sha512", password, salt, iterations("sha512", pim), 64)
    return salt + Chain("aes", hk).crypt(0, plain448, True)


def create(path, size, password, pim, seed):
    if size % UNIT:
        sys.exit("size must be a multiple of 512")
    mk = os.urandom(64)
    hp = header_plain(size, mk)
    keyed = Chain("aes", mk)
    digest = hashlib.sha256()
    with open(path, "wb") as f:
        f.write(seal(hp, password, pim))
        f.write(os.urandom(DATA_OFFSET - 512))
        rnd = hashlib.sha256(seed.encode()).digest()
        off = 0
        chunk = 1 << 20
        while off < size:
            n = min(chunk, size - off)
            # deterministic pseudo-random plaintext (seeded), so runs are reproducible
            block = hashlib.shake_256(rnd + off.to_bytes(8, "little")).digest(n)
            digest.update(block)
            out = bytearray()
            for u in range(0, n, UNIT):
                out += keyed.crypt((DATA_OFFSET + off + u) // UNIT, block[u:u + UNIT], True)
            f.write(out)
            off += n
        f.write(seal(hp, password, pim))
        f.write(os.urandom(131072 - 512))
    os.chmod(path, 0o600)
    return digest.hexdigest()


def verify(path, password, pim):
    with open(path, "rb") as f:
        h = decrypt_header(f.read(512), "aes", "sha512", password, pim)
        if h is None:
            print("header does not open (AES, SHA-512)", file=sys.stderr)
            sys.exit(3)
        fl = fields(h)
        if fl["version"] != 5 or fl["required"] != 0x010B or fl["start"] != DATA_OFFSET or \
                fl["length"] != fl["volume_size"] or fl["sector"] != 512:
            print("not a finished VeraCrypt header: version %d required 0x%04x" % (fl["version"], fl["required"]),
                  file=sys.stderr)
            sys.exit(4)
        mk = fl["keys"][:64]
        if mk[:32] == mk[32:]:
            sys.exit("master key halves equal")
        keyed = Chain("aes", mk)
        start, vol_size = fl["start"], fl["volume_size"]
        f.seek(start)
        digest = hashlib.sha256()
        off = 0
        while off < vol_size:
            n = min(1 << 20, vol_size - off)
            ct = f.read(n)
            out = bytearray()
            for u in range(0, n, UNIT):
                out += keyed.crypt((start + off + u) // UNIT, ct[u:u + UNIT], False)
            digest.update(out)
            off += n
    return digest.hexdigest()


def create_system(path, start, sectors, encrypted, password, seed):
    """§2.5 / §3.2 'system' row: header at 31744, encrypted area start = the partition's drive offset, volume size =
    the key scope (here the partition), encrypted length = bytes encrypted so far; data units from the drive's start."""
    size = sectors * UNIT
    if encrypted is None:
        encrypted = size
    if encrypted % UNIT or encrypted > size or start < 63:
        sys.exit("bad --encrypted or --start")
    mk = os.urandom(64)
    key_area = mk + bytes(192)
    h = bytearray(448)
    h[0:4] = b"VERA"
    struct.pack_into(">HH", h, 4, 5, 0x010B)
    struct.pack_into(">I", h, 8, zlib.crc32(key_area))
    struct.pack_into(">QQQQ", h, 28, 0, size, start * UNIT, encrypted)
    struct.pack_into(">II", h, 60, 1, 512)
    struct.pack_into(">I", h, 188, zlib.crc32(bytes(h[0:188])))
    h[192:448] = key_area
    mbr = bytearray(512)
    mbr[446 + 4] = 0x07
    struct.pack_into("<II", mbr, 446 + 8, start, sectors)
    mbr[510:512] = b"\x55\xaa"
    plain = hashlib.shake_256(hashlib.sha256(seed.encode()).digest()).digest(size)
    keyed = Chain("aes", mk)
    data = bytearray()
    for u in range(0, size, UNIT):
        block = plain[u:u + UNIT]
        data += keyed.crypt(start + u // UNIT, block, True) if u < encrypted else block
    with open(path, "wb") as f:
        f.write(mbr)
        f.write(bytes(31744 - 512))
        salt = os.urandom(64)
        # SHA-512 on a system volume keeps the non-boot count (§5.2, §9 item 7).
        f.write(salt + Chain("aes", pbkdf2("sha512", password, salt, iterations("sha512", 0), 64)).crypt(0, bytes(h), True))
        f.write(bytes(start * UNIT - 31744 - 512))
        f.write(data)
        f.write(bytes(8 * UNIT))  # the drive goes on past the partition
    return hashlib.sha256(plain).hexdigest()


def main():
    ap = argparse.ArgumentParser(description="Independent VeraCrypt reader and writer (see the module text).")
    sub = ap.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("judge")
    j.add_argument("binary")
    j.add_argument("work")
    j.add_argument("source", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    for name in ("create", "verify"):
        p = sub.add_parser(name)
        p.add_argument("path")
        p.add_argument("--password", required=True)
        p.add_argument("--pim", type=int, default=0)
        if name == "create":
            p.add_argument("--size", type=int, required=True)
            p.add_argument("--seed", default="warpvol")
    p = sub.add_parser("create-system")
    p.add_argument("path")
    p.add_argument("--password", required=True)
    p.add_argument("--start", type=int, required=True)
    p.add_argument("--sectors", type=int, required=True)
    p.add_argument("--encrypted", type=int)
    p.add_argument("--seed", default="warpvol")
    a = ap.parse_args()
    if a.cmd == "judge":
        return judge(a.binary, a.work, a.source)
    if a.cmd == "create-system":
        print(create_system(a.path, a.start, a.sectors, a.encrypted, a.password.encode(), a.seed))
        return 0
    pw = a.password.encode()
    print(create(a.path, a.size, pw, a.pim, a.seed) if a.cmd == "create" else verify(a.path, pw, a.pim))
    return 0


if __name__ == "__main__":
    sys.exit(main())
