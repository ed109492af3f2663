#!/usr/bin/env python3
"""Independent VeraCrypt AES container writer/reader for the re-encryption script tests.

Written from docs/format-spec.md only (no warpvol code): PBKDF2-HMAC-SHA-512 from hashlib, AES-XTS from the
`cryptography` package, 512-byte data units numbered by absolute byte offset / 512, V2 layout (header at 0,
backup header at H - 131072, data at 131072). So a container that warpvol re-encrypts to AES is checked by a
second implementation, not by warpvol's own reader.

  create PATH --size BYTES --password PW [--pim N] [--seed S]   -> prints sha256 of the plaintext data area
  verify PATH --password PW [--pim N]                            -> prints sha256 of the plaintext data area;
                                                                    exit 3 if the header does not open, 4 if it
                                                                    opens but is not a finished VeraCrypt header
"""
import argparse
import hashlib
import os
import struct
import sys
import zlib

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

UNIT = 512
DATA_OFFSET = 131072


def iterations(pim):
    return 15000 + 1000 * pim if pim > 0 else 500000


def xts(key64, unit, data, encrypt):
    c = Cipher(algorithms.AES(key64), modes.XTS(unit.to_bytes(16, "little")))
    op = c.encryptor() if encrypt else c.decryptor()
    return op.update(data) + op.finalize()


def header_plain(volume_size, master_key):
    key_area = master_key + bytes(256 - len(master_key))
    h = bytearray(448)  # bytes 64..511 of the header
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
    hk = hashlib.pbkdf2_hmac("sha512", password, salt, iterations(pim), 64)
    return salt + xts(hk, 0, plain448, True)


def create(path, size, password, pim, seed):
    if size % UNIT:
        sys.exit("size must be a multiple of 512")
    H = size + 262144
    mk = os.urandom(64)
    hp = header_plain(size, mk)
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
                out += xts(mk, (DATA_OFFSET + off + u) // UNIT, block[u:u + UNIT], True)
            f.write(out)
            off += n
        f.write(seal(hp, password, pim))
        f.write(os.urandom(131072 - 512))
    os.chmod(path, 0o600)
    return digest.hexdigest()


def verify(path, password, pim):
    with open(path, "rb") as f:
        hdr = f.read(512)
        salt = hdr[:64]
        hk = hashlib.pbkdf2_hmac("sha512", password, salt, iterations(pim), 64)
        p = xts(hk, 0, hdr[64:], False)
        if p[0:4] != b"VERA" or zlib.crc32(p[0:188]) != struct.unpack_from(">I", p, 188)[0] or \
                zlib.crc32(p[192:448]) != struct.unpack_from(">I", p, 8)[0]:
            print("header does not open (AES, SHA-512)", file=sys.stderr)
            sys.exit(3)
        version, required = struct.unpack_from(">HH", p, 4)
        vol_size, start, length = struct.unpack_from(">QQQ", p, 36)
        sector = struct.unpack_from(">I", p, 64)[0]
        if version != 5 or required != 0x010B or start != DATA_OFFSET or length != vol_size or sector != 512:
            print(f"not a finished VeraCrypt header: version {version} required 0x{required:04x}", file=sys.stderr)
            sys.exit(4)
        mk = p[192:256]
        if mk[:32] == mk[32:]:
            sys.exit("master key halves equal")
        f.seek(start)
        digest = hashlib.sha256()
        off = 0
        while off < vol_size:
            n = min(1 << 20, vol_size - off)
            ct = f.read(n)
            out = bytearray()
            for u in range(0, n, UNIT):
                out += xts(mk, (start + off + u) // UNIT, ct[u:u + UNIT], False)
            digest.update(out)
            off += n
    return digest.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["create", "verify"])
    ap.add_argument("path")
    ap.add_argument("--size", type=int, default=0)
    ap.add_argument("--password", required=True)
    ap.add_argument("--pim", type=int, default=0)
    ap.add_argument("--seed", default="warpvol")
    a = ap.parse_args()
    pw = a.password.encode()
    if a.cmd == "create":
        print(create(a.path, a.size, pw, a.pim, a.seed))
    else:
        print(verify(a.path, pw, a.pim))


if __name__ == "__main__":
    main()
