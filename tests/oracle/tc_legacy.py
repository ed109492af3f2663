#!/usr/bin/env python3
"""Legacy TrueCrypt containers (before 5.0: LRW and CBC modes) built from the format spec, checked by an
independent decryptor, then opened by warpvol.

Written from docs/format-spec.md §2.4 (V1 layouts), §3.3 (header versions 1-2), §4.2 (64-byte keyfile pool), §5
(PBKDF2 with TrueCrypt's counts), §6.2 (LRW block index) and §6.5 / TrueCrypt 7.1a's Common/Crypto.c as restated
there (key area = 32-byte LRW tweak key or CBC IV/whitening seed, then each cipher's key at its own size; CBC
per-sector IV and whitening; outer-CBC and inner-CBC cascades), with Botan 2 (python3-botan) for the block
ciphers and HMACs only, never warpvol's code.

For each (algorithm, mode) TrueCrypt had x each PRF of TrueCrypt 4.x (RIPEMD-160, SHA-1, Whirlpool):
  1. generate a container (random plaintext, V1 layout, header version 1 or 2),
  2. decrypt it again here with a separate reader (header search over the PRF's key, master key, data) and
     compare with the plaintext,
  3. run `warpvol info --json` (auto-detection, no narrowing) and `warpvol export`, and compare.
Plus hidden volumes (header 1536 bytes before the end) for each mode family, a keyfile, narrowing options and a
wrong password.

usage: tc_legacy.py WARPVOL_BINARY WORKDIR [--quick]     exit 0 ok, 1 failure
"""
import json
import os
import struct
import subprocess
import sys
import zlib

try:
    import botan2
except ImportError:
    print("FAIL: python3-botan (botan2 module) is missing: scripts/deps.sh installs it")
    sys.exit(1)

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


# --- ciphers -----------------------------------------------------------------------------------------------
# name -> (Botan name, block size, key size TrueCrypt takes)
CIPHERS = {
    "AES": ("AES-256", 16, 32), "Serpent": ("Serpent", 16, 32), "Twofish": ("Twofish", 16, 32),
    "Blowfish": ("Blowfish", 8, 56), "CAST5": ("CAST-128", 8, 16), "Triple DES": ("TripleDES", 8, 24),
}


def swap_halves(b):
    """TrueCrypt's Blowfish loads each 4-byte half little-endian; Botan's (the standard) big-endian."""
    out = bytearray()
    for i in range(0, len(b), 4):
        out += b[i:i + 4][::-1]
    return bytes(out)


class Cipher:
    def __init__(self, name, key):
        self.name = name
        botan_name, self.bs, ks = CIPHERS[name]
        assert len(key) == ks
        self.c = botan2.BlockCipher(botan_name)
        self.c.set_key(key)

    # Botan's python module returns a ctypes array: .raw is its bytes.
    def enc(self, block):
        if self.name == "Blowfish":
            return swap_halves(self.c.encrypt(swap_halves(block)).raw)
        return self.c.encrypt(block).raw

    def dec(self, block):
        if self.name == "Blowfish":
            return swap_halves(self.c.decrypt(swap_halves(block)).raw)
        return self.c.decrypt(block).raw


# Algorithms in encryption order (TrueCrypt's list order; names list the last applied first) and their modes.
EAS = {
    "aes": (["AES"], ["lrw", "cbc"]), "serpent": (["Serpent"], ["lrw", "cbc"]),
    "twofish": (["Twofish"], ["lrw", "cbc"]),
    "aes-twofish": (["Twofish", "AES"], ["lrw", "outer-cbc"]),
    "aes-twofish-serpent": (["Serpent", "Twofish", "AES"], ["lrw", "outer-cbc"]),
    "serpent-aes": (["AES", "Serpent"], ["lrw", "outer-cbc"]),
    "serpent-twofish-aes": (["AES", "Twofish", "Serpent"], ["lrw", "outer-cbc"]),
    "twofish-serpent": (["Serpent", "Twofish"], ["lrw", "outer-cbc"]),
    "blowfish": (["Blowfish"], ["lrw", "cbc"]), "cast5": (["CAST5"], ["lrw", "cbc"]),
    "triple-des": (["Triple DES"], ["lrw", "cbc"]),
    "aes-blowfish": (["Blowfish", "AES"], ["inner-cbc"]),
    "aes-blowfish-serpent": (["Serpent", "Blowfish", "AES"], ["inner-cbc"]),
}
MODE_TEXT = {"lrw": "LRW", "cbc": "CBC", "outer-cbc": "outer-CBC", "inner-cbc": "inner-CBC"}
PRFS = {"ripemd160": ("RIPEMD-160", 2000), "sha1": ("SHA-1", 2000), "whirlpool": ("Whirlpool", 1000)}


def key_len(ea):
    return 32 + sum(CIPHERS[c][2] for c in EAS[ea][0])


def ciphers_for(ea, key):
    """key: 32-byte tweak key / IV seed, then each cipher's key in encryption order."""
    out, off = [], 32
    for name in EAS[ea][0]:
        ks = CIPHERS[name][2]
        out.append(Cipher(name, key[off:off + ks]))
        off += ks
    return out


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


# --- LRW ---------------------------------------------------------------------------------------------------
def gf_mul(a, b, bits):
    """Product in GF(2^128) mod x^128+x^7+x^2+x+1 or GF(2^64) mod x^64+x^4+x^3+x+1, big-endian integers."""
    poly = 0x87 if bits == 128 else 0x1B
    r = 0
    for i in range(bits - 1, -1, -1):
        carry = r >> (bits - 1)
        r = (r << 1) & ((1 << bits) - 1)
        if carry:
            r ^= poly
        if (b >> i) & 1:
            r ^= a
    return r


def lrw(ciphers, tweak_key, first_index, data, encrypt):
    bs = ciphers[0].bs
    k2 = int.from_bytes(tweak_key[:bs], "big")
    out = bytearray()
    for j in range(0, len(data), bs):
        t = gf_mul(k2, first_index + j // bs, bs * 8).to_bytes(bs, "big")
        x = xor(data[j:j + bs], t)
        if encrypt:
            for c in ciphers:
                x = c.enc(x)
        else:
            for c in reversed(ciphers):
                x = c.dec(x)
        out += xor(x, t)
    return bytes(out)


# --- CBC ---------------------------------------------------------------------------------------------------
def cbc(block_enc, block_dec, bs, iv, whitening, data, encrypt):
    """CBC whose ciphertext blocks are XORed with the 8 whitening bytes (chaining uses the unwhitened block)."""
    w = whitening * (bs // 8)
    prev, out = iv, bytearray()
    for j in range(0, len(data), bs):
        b = data[j:j + bs]
        if encrypt:
            c = block_enc(xor(b, prev))
            prev = c
            out += xor(c, w)
        else:
            c = xor(b, w)
            out += xor(block_dec(c), prev)
            prev = c
    return bytes(out)


def sector_iv(seed, unit, bs):
    """Per-sector IV and whitening: seed words xor LE64(unit); whitening from CRC-32s of 32-bit words."""
    words = b"".join(struct.pack("<Q", struct.unpack("<Q", seed[8 * k:8 * k + 8])[0] ^ unit) for k in range(4))
    crc = lambda i: zlib.crc32(words[4 * i:4 * i + 4])
    if bs == 16:
        return words[:16], struct.pack("<II", crc(4) ^ crc(7), crc(5) ^ crc(6))
    return words[:8], struct.pack("<II", crc(2) ^ crc(5), crc(3) ^ crc(4))


def cascade_fns(ciphers):
    def enc(b):
        for c in ciphers:
            b = c.enc(b)
        return b

    def dec(b):
        for c in reversed(ciphers):
            b = c.dec(b)
        return b
    return enc, dec


def crypt_header(ea, mode, key, body448, encrypt):
    cs = ciphers_for(ea, key)
    if mode == "lrw":
        return lrw(cs, key[:16], 1, body448, encrypt)
    if mode == "outer-cbc":
        e, d = cascade_fns(cs)
        return cbc(e, d, 16, key[:16], key[8:16], body448, encrypt)
    order = cs if encrypt else list(reversed(cs))
    for c in order:
        body448 = cbc(c.enc, c.dec, c.bs, key[:c.bs], key[8:16], body448, encrypt)
    return body448


def crypt_units(ea, mode, key, first_unit, data_unit_base, data, encrypt):
    """Whole 512-byte units; first_unit host-relative; LRW counts blocks from the data area (1-based)."""
    cs = ciphers_for(ea, key)
    if mode == "lrw":
        bs = cs[0].bs
        return lrw(cs, key[:16], (first_unit - data_unit_base) * (512 // bs) + 1, data, encrypt)
    out = bytearray()
    for u in range(len(data) // 512):
        unit = first_unit + u
        s = data[512 * u:512 * u + 512]
        if mode == "outer-cbc":
            e, d = cascade_fns(cs)
            iv, w = sector_iv(key, unit, 16)
            s = cbc(e, d, 16, iv, w, s, encrypt)
        else:
            for c in (cs if encrypt else list(reversed(cs))):
                iv, w = sector_iv(key, unit, c.bs)
                s = cbc(c.enc, c.dec, c.bs, iv, w, s, encrypt)
        out += s
    return bytes(out)


# --- KDF, keyfiles -----------------------------------------------------------------------------------------
def pbkdf2(prf, password, salt, length):
    name, iterations = PRFS[prf]
    mac = botan2.MsgAuthCode("HMAC(%s)" % name)
    mac.set_key(password)
    out = b""
    block = 1
    while len(out) < length:
        mac.update(salt + struct.pack(">I", block))
        u = mac.final()
        acc = bytearray(u)
        for _ in range(iterations - 1):
            mac.update(u)
            u = mac.final()
            for i, x in enumerate(u):
                acc[i] ^= x
        out += bytes(acc)
        block += 1
    return out[:length]


def keyfile_password(password, keyfiles):
    """§4.2 with TrueCrypt's 64-byte pool."""
    pool = bytearray(64)
    for kf in keyfiles:
        crc, pos = 0xFFFFFFFF, 0
        for b in kf[:1048576]:
            crc = zlib.crc32(bytes([b]), crc ^ 0xFFFFFFFF) ^ 0xFFFFFFFF  # the running register
            for k, shift in enumerate((24, 16, 8, 0)):
                pool[pos + k] = (pool[pos + k] + (crc >> shift)) & 0xFF
            pos = (pos + 4) % 64
    out = bytearray(pool)
    for i, b in enumerate(password):
        out[i] = (b + pool[i]) & 0xFF
    return bytes(out)


# --- containers --------------------------------------------------------------------------------------------
REQUIRED = {"lrw": 0x0410, "cbc": 0x0300, "outer-cbc": 0x0300, "inner-cbc": 0x0300}


def header_plain(version, required, master, hidden_size):
    h = bytearray(448)  # header bytes 64..511
    h[0:4] = b"TRUE"
    struct.pack_into(">HH", h, 4, version, required)
    struct.pack_into(">I", h, 8, zlib.crc32(master))
    struct.pack_into(">Q", h, 92 - 64, hidden_size)
    h[256 - 64:] = master
    return bytes(h)


def make_header(ea, mode, prf, password, master, hidden_size, version):
    salt = os.urandom(64)
    dk = pbkdf2(prf, password, salt, key_len(ea))
    return salt + crypt_header(ea, mode, dk, header_plain(version, REQUIRED[mode], master, hidden_size), True)


def new_master(ea):
    return os.urandom(256)  # tweak key / seed, cipher keys, then random bytes TrueCrypt never used


def build(path, ea, mode, prf, password, size, hidden=None, version=2):
    """V1 normal volume: header at 0, data [512, size). hidden = (password, hidden_size): a V1 hidden volume with
    its header at size-1536 and data at size-hidden_size-1536. Returns (outer plaintext, hidden plaintext)."""
    master = new_master(ea)
    plain = os.urandom(size - 512)
    data = crypt_units(ea, mode, master, 1, 1, plain, True)
    img = bytearray(make_header(ea, mode, prf, password, master, 0, version) + data)
    hplain = None
    if hidden:
        hpw, hsize = hidden
        hmaster = new_master(ea)
        start = size - hsize - 1536
        hplain = os.urandom(hsize)
        img[start:start + hsize] = crypt_units(ea, mode, hmaster, start // 512, start // 512, hplain, True)
        img[size - 1536:size - 1024] = make_header(ea, mode, prf, hpw, hmaster, hsize, version)
        # The outer plaintext where the hidden volume lies is no longer recoverable: compare the rest only.
    with open(path, "wb") as f:
        f.write(img)
    return plain, hplain


# --- the independent reader --------------------------------------------------------------------------------
def read_volume(path, ea, mode, prf, password, hidden=False):
    img = open(path, "rb").read()
    H = len(img)
    off = H - 1536 if hidden else 0
    raw = img[off:off + 512]
    dk = pbkdf2(prf, password, raw[:64], key_len(ea))
    body = crypt_header(ea, mode, dk, raw[64:], False)
    if body[:4] != b"TRUE" or struct.unpack(">I", body[8:12])[0] != zlib.crc32(body[192:]):
        return None
    master = body[192:]
    if hidden:
        hsize = struct.unpack(">Q", body[28:36])[0]
        start = H - hsize - 1536
    else:
        start, hsize = 512, H - 512
    return crypt_units(ea, mode, master, start // 512, start // 512, img[start:start + hsize], False)


# --- warpvol -----------------------------------------------------------------------------------------------
def warpvol(binary, args, password):
    return subprocess.run([binary] + args + ["--password-stdin", "--non-interactive"], input=password + b"\n",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def check_warpvol(binary, work, tag, path, ea, mode, prf, password, expect, extra=(), hidden=False):
    r = warpvol(binary, ["info", path, "--json"] + list(extra), password)
    check(r.returncode == 0, "%s: info exit %d: %s" % (tag, r.returncode, r.stderr.decode(errors="replace")))
    if r.returncode != 0:
        return
    j = json.loads(r.stdout)
    check(j["encryption_cli"] == ea, "%s: encryption %s" % (tag, j["encryption_cli"]))
    check(j["mode"] == MODE_TEXT[mode], "%s: mode %s" % (tag, j["mode"]))
    check(j["prf"] == prf, "%s: prf %s" % (tag, j["prf"]))
    check(j["legacy"] is True, "%s: not reported as legacy" % tag)
    check(j["volume_type"].startswith("hidden" if hidden else "normal"), "%s: type %s" % (tag, j["volume_type"]))
    check(j["data_size"] == len(expect), "%s: data size %d != %d" % (tag, j["data_size"], len(expect)))
    out = os.path.join(work, "export.raw")
    r = warpvol(binary, ["export", path, out, "--force"] + list(extra), password)
    check(r.returncode == 0, "%s: export exit %d: %s" % (tag, r.returncode, r.stderr.decode(errors="replace")))
    if r.returncode == 0:
        got = open(out, "rb").read()
        check(got == expect, "%s: exported plaintext differs" % tag)
        os.unlink(out)


def migrate(binary, work, password):
    """convert refuses a V1-layout volume (nothing written) and names the two ways forward: `warpvol reencrypt` in
    place (tests/oracle/tc_migrate.py checks that one) and export + import, which gives a VeraCrypt volume whose data
    is the legacy volume's plaintext."""
    path = os.path.join(work, "m.tc")
    plain, _ = build(path, "serpent", "lrw", "ripemd160", password, 16 * 1024 + 512)
    before = open(path, "rb").read()
    r = warpvol(binary, ["convert", path, "--to", "veracrypt"], password)
    err = r.stderr.decode(errors="replace")
    check(r.returncode == 4, "convert: exit %d (expected 4): %s" % (r.returncode, err))
    check("warpvol reencrypt" in err and "warpvol export" in err and "warpvol import" in err,
          "convert: no reencrypt and export + import advice: %s" % err)
    check(open(path, "rb").read() == before, "convert changed the container")
    img, new = os.path.join(work, "m.img"), os.path.join(work, "m.hc")
    r = warpvol(binary, ["export", path, img], password)
    check(r.returncode == 0, "migrate: export exit %d" % r.returncode)
    r = warpvol(binary, ["import", img, new, "--encryption", "aes", "--hash", "sha256", "-q"], b"new password")
    check(r.returncode == 0, "migrate: import exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace")))
    out = os.path.join(work, "m.out")
    r = warpvol(binary, ["export", new, out, "--veracrypt", "--hash", "sha256", "--encryption", "aes"],
                b"new password")
    check(r.returncode == 0, "migrate: export of the VeraCrypt volume exit %d" % r.returncode)
    if r.returncode == 0:
        got = open(out, "rb").read()
        check(got[:len(plain)] == plain and not any(got[len(plain):]), "migrate: VeraCrypt volume's data differ")
    print("ok" if not FAILS else "FAILED", "convert refusal and export + import migration", flush=True)


def main():
    binary, work = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    password = b"legacy volume"
    n_open = 0
    suites = [(ea, mode) for ea, (_, modes) in EAS.items() for mode in modes]
    assert len(suites) == 24
    for i, (ea, mode) in enumerate(suites):
        for k, prf in enumerate(PRFS):
            if quick and k != i % 3:
                continue
            tag = "%s/%s/%s" % (ea, mode, prf)
            path = os.path.join(work, "v.tc")
            version = 1 if (i + k) % 2 else 2
            plain, _ = build(path, ea, mode, prf, password, 16 * 1024 + 512, version=version)
            check(read_volume(path, ea, mode, prf, password) == plain, tag + ": the spec reader disagrees")
            before = len(FAILS)
            check_warpvol(binary, work, tag, path, ea, mode, prf, password, plain)
            n_open += len(FAILS) == before
            print("ok" if len(FAILS) == before else "FAILED", tag, flush=True)

    # Hidden volumes (V1: header 1536 bytes before the end), one per mode family and block size.
    for ea, mode, prf in [("aes", "lrw", "ripemd160"), ("cast5", "lrw", "sha1"), ("serpent", "cbc", "whirlpool"),
                          ("triple-des", "cbc", "ripemd160"), ("twofish-serpent", "outer-cbc", "sha1"),
                          ("aes-blowfish-serpent", "inner-cbc", "ripemd160")]:
        tag = "hidden %s/%s/%s" % (ea, mode, prf)
        path = os.path.join(work, "h.tc")
        hpw = b"the hidden one"
        outer, hplain = build(path, ea, mode, prf, password, 64 * 1024 + 512, hidden=(hpw, 16 * 1024))
        check(read_volume(path, ea, mode, prf, hpw, hidden=True) == hplain, tag + ": the spec reader disagrees")
        check_warpvol(binary, work, tag, path, ea, mode, prf, hpw, hplain, hidden=True)
        # The outer volume still opens; its plaintext before the hidden area is intact.
        r = warpvol(binary, ["info", path, "--json"], password)
        check(r.returncode == 0 and json.loads(r.stdout)["volume_type"].startswith("normal"), tag + ": outer")
        print("ok" if not FAILS else "FAILED", tag, flush=True)

    # A keyfile (TrueCrypt's 64-byte pool) with a password.
    kf = os.path.join(work, "key.bin")
    kfdata = os.urandom(3000)
    open(kf, "wb").write(kfdata)
    path = os.path.join(work, "k.tc")
    kpw = keyfile_password(password, [kfdata])
    plain, _ = build(path, "blowfish", "cbc", "sha1", kpw, 8 * 1024 + 512)
    check(read_volume(path, "blowfish", "cbc", "sha1", kpw) == plain, "keyfile: the spec reader disagrees")
    check_warpvol(binary, work, "keyfile blowfish/cbc/sha1", path, "blowfish", "cbc", "sha1", password, plain,
                  extra=["--keyfile", kf])

    # Narrowing: --truecrypt/--encryption/--hash find it; --veracrypt, another algorithm or PRF do not.
    path = os.path.join(work, "n.tc")
    plain, _ = build(path, "aes-twofish", "lrw", "whirlpool", password, 8 * 1024 + 512)
    check_warpvol(binary, work, "narrowed", path, "aes-twofish", "lrw", "whirlpool", password, plain,
                  extra=["--truecrypt", "--encryption", "aes-twofish", "--hash", "whirlpool"])
    # (Each narrowed to cheap derivations: a full wrong-password search costs seconds.)
    for extra in (["--veracrypt", "--hash", "sha256", "--encryption", "aes-twofish"], ["--encryption", "blowfish"],
                  ["--hash", "sha1"], ["--truecrypt", "--encryption", "serpent"]):
        r = warpvol(binary, ["info", path] + extra, password)
        check(r.returncode == 2, "narrowed by %s: exit %d (expected 2)" % (extra, r.returncode))
    r = warpvol(binary, ["info", path, "--truecrypt"], b"wrong password")
    check(r.returncode == 2, "wrong password: exit %d (expected 2)" % r.returncode)

    migrate(binary, work, password)

    print("legacy containers opened and exported: %d of %d" % (n_open, 24 * (1 if quick else 3)))
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
