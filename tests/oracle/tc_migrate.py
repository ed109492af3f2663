#!/usr/bin/env python3
"""`warpvol reencrypt` migrating TrueCrypt volumes from before 5.0 (V1 layout, LRW/CBC modes) IN PLACE into
VeraCrypt volumes, judged by independent readers: the containers are built and read back by tc_legacy.py (Botan 2,
from the spec), the results opened by vc_oracle.py (hashlib + Botan 2, from the spec), never by warpvol's code.

  1. Round trips, one per line of COMBOS (mode x algorithm x PRF, several segments) and a TrueCrypt 5.x XTS volume (same V1 layout,
     built here with Botan's XTS): the spec reader reads the legacy container, warpvol
     exports it, `warpvol reencrypt OLD.tc --new-encryption aes` migrates it (checksum and journal resilience
     alternating), then the container has the V2 size (data + 262144), vc_oracle.py's `verify` decrypts its data area
     to the same plaintext, and `warpvol export --veracrypt` gives the same bytes as the export before. Then every
     one of the 72 mode x algorithm x PRF combinations, small (one segment), migrated and checked the same way.
  2. Refusals that leave the file byte-identical: a legacy hidden volume (export + import advice), an outer volume
     without --no-hidden-volume, a loop device (cannot grow; skipped visibly where no loop device can be attached);
     `warpvol convert` on a legacy volume points at reencrypt.
  3. kill -9 at random moments of a migration (both resiliences), each followed by the same command again; after
     each kill, the old and the new password either refuse or open the original plaintext; at the end the oracle
     verifies the VeraCrypt volume.

usage: tc_migrate.py WARPVOL_BINARY WORKDIR     exit 0 ok, 1 failure
"""
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import struct
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tc_legacy  # noqa: E402 (the legacy container builder and reader; exits 1 without Botan 2)
import botan2  # noqa: E402 (tc_legacy has checked that it is there)

ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vc_oracle.py")
FAILS = []
OLD, NEW = b"legacy password", b"the new one"

# (mode, algorithm, PRF, data size): every legacy mode, both block sizes, all three PRFs of TrueCrypt 4.x. Even
# lines migrate with checksum resilience (130560-byte datashift segments: 4 to 9 here), odd ones with journal
# resilience and 1 MiB segments (2 or 3 here, the last one short).
MiB = 1024 * 1024
COMBOS = [
    ("lrw", "aes", "ripemd160", 1 * MiB),
    ("lrw", "blowfish", "sha1", 1 * MiB + 300 * 1024),
    ("lrw", "triple-des", "whirlpool", 512 * 1024),
    ("lrw", "serpent-twofish-aes", "sha1", 2 * MiB + 4096),
    ("cbc", "aes", "whirlpool", 1 * MiB + 512),
    ("cbc", "cast5", "ripemd160", 2 * MiB),
    ("outer-cbc", "aes-twofish-serpent", "sha1", 600 * 1024),
    ("outer-cbc", "serpent-aes", "whirlpool", 1 * MiB + 1536),
    ("inner-cbc", "aes-blowfish", "ripemd160", 700 * 1024),
    ("inner-cbc", "aes-blowfish-serpent", "whirlpool", 1 * MiB + 100 * 1024),
]


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, flush=True)
    return cond


def run(binary, args, stdin):
    return subprocess.run([binary] + args + ["--non-interactive"], input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)


def migrate_args(path, prf, resilience):
    return ["reencrypt", path, "--truecrypt", "--hash", prf, "--password-stdin", "--new-password-stdin",
            "--new-encryption", "aes", "--new-hash", "sha512", "--new-pim", "1", "--no-hidden-volume",
            "--resilience", resilience, "--hotzone-size", "1M", "-q"]


def export_plain(binary, work, path, args, password):
    out = os.path.join(work, "export.raw")
    if os.path.exists(out):
        os.unlink(out)
    r = run(binary, ["export", path, out, "--password-stdin", "-q"] + args, password + b"\n")
    if r.returncode != 0:
        return None, r.stderr.decode(errors="replace")
    data = open(out, "rb").read()
    os.unlink(out)
    return data, ""


def oracle_sha(path):
    r = subprocess.run([sys.executable, ORACLE, "verify", path, "--password", NEW.decode(), "--pim", "1"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.stdout.decode().strip() if r.returncode == 0 else "oracle exit %d: %s" % (r.returncode, r.stderr.decode())


def build_tc5_xts(path, size):
    """A TrueCrypt 5.x volume (XTS-AES, HMAC-SHA-512 with TrueCrypt's 1000 iterations) in the V1 layout: header
    version 3 at 0 (required program version 0x0500, volume size and encrypted area at 100/108/116), data from 512
    with data units numbered from the container's start (docs/format-spec.md §2.4, §3.3, §6). Botan 2's XTS."""
    master, salt = os.urandom(64), os.urandom(64)
    h = bytearray(448)
    h[0:4] = b"TRUE"
    struct.pack_into(">HH", h, 4, 3, 0x0500)
    keys = master + bytes(192)
    struct.pack_into(">I", h, 8, zlib.crc32(keys))
    struct.pack_into(">QQQ", h, 100 - 64, size, 512, size)
    h[192:] = keys
    c = botan2.SymmetricCipher("AES-256/XTS", encrypt=True)
    c.set_key(hashlib.pbkdf2_hmac("sha512", OLD, salt, 1000, 64))
    c.start(bytes(16))
    plain = os.urandom(size)
    with open(path, "wb") as f:
        f.write(salt + bytes(c.finish(bytes(h))))
        c = botan2.SymmetricCipher("AES-256/XTS", encrypt=True)
        c.set_key(master)
        for i in range(0, size, 512):
            c.start(struct.pack("<QQ", 1 + i // 512, 0))
            f.write(bytes(c.finish(plain[i:i + 512])))
    return plain


def every_suite(binary, work):
    """Every mode x algorithm TrueCrypt before 5.0 had (tc_legacy.EAS: 24) with each of its PRFs: 72 small volumes
    (one 16 KiB segment), each migrated, then read by the oracle and exported again. Returns the tags migrated."""
    suites = [(ea, mode) for ea, (_, modes) in tc_legacy.EAS.items() for mode in modes]
    assert len(suites) == 24
    done = []
    for i, (ea, mode) in enumerate(suites):
        for k, prf in enumerate(tc_legacy.PRFS):
            tag = "%s/%s/%s" % (mode, ea, prf)
            path = os.path.join(work, "s.tc")
            size = 16 * 1024
            plain, _ = tc_legacy.build(path, ea, mode, prf, OLD, size + 512, version=1 + (i + k) % 2)
            resilience = "checksum" if (i + k) % 2 == 0 else "journal"
            r = run(binary, migrate_args(path, prf, resilience), OLD + b"\n" + NEW + b"\n")
            ok = check(r.returncode == 0, "%s: reencrypt exit %d: %s" % (tag, r.returncode, r.stderr.decode()))
            ok &= check(os.path.getsize(path) == size + 262144, tag + ": size %d" % os.path.getsize(path))
            ok &= check(oracle_sha(path) == hashlib.sha256(plain).hexdigest(), tag + ": the oracle reads other data")
            after, err = export_plain(binary, work, path, ["--veracrypt", "--hash", "sha512", "--pim", "1"], NEW)
            ok &= check(after == plain, tag + ": export after migration differs " + err)
            if ok:
                done.append(tag)
            os.unlink(path)
    print("ok" if len(done) == 72 else "FAILED", "every suite and PRF migrated: %d of 72" % len(done), flush=True)
    return done


def round_trips_tc5(binary, work):
    for resilience in ("checksum", "journal"):
        tag = "TrueCrypt 5.x xts/aes/sha512"
        path = os.path.join(work, "x.tc")
        size = 3 * MiB + 512
        plain = build_tc5_xts(path, size)
        before, err = export_plain(binary, work, path, ["--truecrypt", "--hash", "sha512"], OLD)
        ok = check(before == plain, tag + ": export of the legacy volume differs " + err)
        r = run(binary, migrate_args(path, "sha512", resilience), OLD + b"\n" + NEW + b"\n")
        ok &= check(r.returncode == 0, "%s: reencrypt exit %d: %s" % (tag, r.returncode, r.stderr.decode()))
        ok &= check(os.path.getsize(path) == size + 262144, tag + ": size %d" % os.path.getsize(path))
        ok &= check(oracle_sha(path) == hashlib.sha256(plain).hexdigest(), tag + ": the oracle reads other data")
        print("ok" if ok else "FAILED", "migrated", tag, resilience, flush=True)
        os.unlink(path)


def round_trips(binary, work):
    for i, (mode, ea, prf, size) in enumerate(COMBOS):
        tag = "%s/%s/%s" % (mode, ea, prf)
        path = os.path.join(work, "m%d.tc" % i)
        plain, _ = tc_legacy.build(path, ea, mode, prf, OLD, size + 512, version=1 + i % 2)
        ok = check(tc_legacy.read_volume(path, ea, mode, prf, OLD) == plain, tag + ": the spec reader disagrees")
        before, err = export_plain(binary, work, path, ["--truecrypt", "--hash", prf], OLD)
        ok &= check(before == plain, tag + ": export of the legacy volume differs " + err)
        resilience = "checksum" if i % 2 == 0 else "journal"
        r = run(binary, migrate_args(path, prf, resilience), OLD + b"\n" + NEW + b"\n")
        ok &= check(r.returncode == 0, "%s: reencrypt exit %d: %s" % (tag, r.returncode, r.stderr.decode()))
        ok &= check(os.path.getsize(path) == size + 262144, tag + ": size %d" % os.path.getsize(path))
        ok &= check(not os.path.exists(path + ".warpvol-reencrypt"), tag + ": journal left behind")
        ok &= check(oracle_sha(path) == hashlib.sha256(plain).hexdigest(), tag + ": the oracle reads other data")
        after, err = export_plain(binary, work, path, ["--veracrypt", "--hash", "sha512", "--pim", "1"], NEW)
        ok &= check(after is not None and after == before, tag + ": export after migration differs " + err)
        print("ok" if ok else "FAILED", "migrated", tag, resilience, flush=True)
        os.unlink(path)


def refusals(binary, work):
    path = os.path.join(work, "h.tc")
    hpw = b"the hidden one"
    tc_legacy.build(path, "aes", "lrw", "ripemd160", OLD, 256 * 1024 + 512, hidden=(hpw, 64 * 1024))
    before = open(path, "rb").read()

    def refused(tag, args, stdin, code, phrase):
        r = run(binary, args, stdin)
        err = r.stderr.decode(errors="replace")
        ok = check(r.returncode == code, "%s: exit %d (expected %d): %s" % (tag, r.returncode, code, err))
        ok &= check(phrase in err, "%s: no '%s' in: %s" % (tag, phrase, err))
        ok &= check(open(path, "rb").read() == before, tag + ": the container changed")
        ok &= check(not os.path.exists(path + ".warpvol-reencrypt"), tag + ": a journal was left")
        print("ok" if ok else "FAILED", "refused:", tag, flush=True)

    refused("legacy hidden volume", migrate_args(path, "ripemd160", "checksum"), hpw + b"\n" + NEW + b"\n", 4,
            "warpvol export")
    args = [a for a in migrate_args(path, "ripemd160", "checksum") if a != "--no-hidden-volume"]
    refused("outer volume without --no-hidden-volume", args, OLD + b"\n" + NEW + b"\n", 1, "DESTROYS a hidden volume")
    refused("convert", ["convert", path, "--to", "veracrypt", "--password-stdin"], OLD + b"\n", 4, "warpvol reencrypt")

    # A block device cannot grow: a loop device over a copy of the container.
    dev_file = os.path.join(work, "dev.tc")
    tc_legacy.build(dev_file, "cast5", "cbc", "sha1", OLD, 256 * 1024 + 512)
    dev_before = open(dev_file, "rb").read()
    r = subprocess.run(["losetup", "-f", "--show", dev_file], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        print("skip: no loop device could be attached (%s): the device refusal is covered by the Catch2 test's "
              "target that cannot grow" % r.stderr.decode().strip(), flush=True)
        return
    dev = r.stdout.decode().strip()
    try:
        r = run(binary, migrate_args(dev, "sha1", "checksum"), OLD + b"\n" + NEW + b"\n")
        err = r.stderr.decode(errors="replace")
        ok = check(r.returncode == 4, "loop device: exit %d: %s" % (r.returncode, err))
        ok &= check("warpvol export" in err and "device" in err, "loop device: no advice: " + err)
    finally:
        subprocess.run(["losetup", "-d", dev])
    ok &= check(open(dev_file, "rb").read() == dev_before, "loop device: the container changed")
    print("ok" if ok else "FAILED", "refused: loop device", dev, flush=True)


def open_check(binary, work, path, prf, plain, tag):
    """After a kill: each password refuses (2, or 4 'half re-encrypted') or opens and exports the plaintext."""
    for pw, args in ((OLD, ["--truecrypt", "--hash", prf]), (NEW, ["--veracrypt", "--hash", "sha512", "--pim", "1"])):
        r = run(binary, ["info", path, "--password-stdin"] + args, pw + b"\n")
        err = r.stderr.decode(errors="replace")
        if r.returncode == 0:
            got, e = export_plain(binary, work, path, args, pw)
            check(got == plain, "%s: a header opened with %s but exports other data %s" % (tag, pw, e))
        else:
            check(r.returncode == 2 or (r.returncode == 4 and "half re-encrypted" in err),
                  "%s: info with %s: exit %d: %s" % (tag, pw, r.returncode, err))


def kills(binary, work):
    """SIGKILL at random moments (uniform over a measured undisturbed run, measured again by each whole job that
    finishes before its kill), each followed by the same command again; a finished job starts over from the pristine
    legacy container until enough kills landed in a running job."""
    prf, size = "ripemd160", 8 * MiB
    pristine = os.path.join(work, "k-pristine.tc")
    plain, _ = tc_legacy.build(pristine, "aes", "cbc", prf, OLD, size + 512)
    path = os.path.join(work, "k.tc")
    for resilience in ("checksum", "journal"):
        shutil.copyfile(pristine, path)
        t0 = time.monotonic()
        r = run(binary, migrate_args(path, prf, resilience), OLD + b"\n" + NEW + b"\n")
        duration = time.monotonic() - t0
        check(r.returncode == 0, "%s: undisturbed run exit %d" % (resilience, r.returncode))
        shutil.copyfile(pristine, path)
        n_kills = runs = jobs = 0
        fresh = True  # the next run starts a job from the pristine container (not a resume after a kill)
        while n_kills < 10 and runs < 60:
            runs += 1
            t0 = time.monotonic()
            p = subprocess.Popen([binary] + migrate_args(path, prf, resilience) + ["--non-interactive"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            p.stdin.write(OLD + b"\n" + NEW + b"\n")
            p.stdin.close()
            try:
                p.wait(timeout=random.uniform(0.0, duration))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait()
                n_kills += 1
                fresh = False
                open_check(binary, work, path, prf, plain, "%s kill %d" % (resilience, n_kills))
                continue
            if fresh:
                # A whole job finished before its kill: the machine's load changed since the measured run (a
                # parallel test suite comes and goes), so the kills aim at this run's time from now on.
                duration = time.monotonic() - t0
            rc = p.returncode
            err = p.stderr.read().decode(errors="replace")
            journal = os.path.exists(path + ".warpvol-reencrypt")
            # rc 2: a killed run had already finished (journal gone): the old password opens nothing any more.
            if not check(rc == 0 or (rc == 2 and not journal), "%s: run %d exit %d: %s" % (resilience, runs, rc, err)):
                break
            jobs += 1
            ok = check(os.path.getsize(path) == size + 262144, resilience + ": size after the job")
            ok &= check(oracle_sha(path) == hashlib.sha256(plain).hexdigest(), resilience + ": oracle after kills")
            got, e = export_plain(binary, work, path, ["--veracrypt", "--hash", "sha512", "--pim", "1"], NEW)
            ok &= check(got == plain, resilience + ": export after kills " + e)
            shutil.copyfile(pristine, path)  # the next job
            fresh = True
        check(n_kills >= 10, "%s: only %d kills landed in %d runs" % (resilience, n_kills, runs))
        # Finish the last job and judge it. The last kill may have landed after the job's end (journal removed,
        # final headers written) but before the process exited: then the old password opens nothing (rc 2), as in
        # the loop above, and the oracle below shows that nothing was lost.
        journal = os.path.exists(path + ".warpvol-reencrypt")
        r = run(binary, migrate_args(path, prf, resilience), OLD + b"\n" + NEW + b"\n")
        ok = check(r.returncode == 0 or (r.returncode == 2 and not journal),
                   "%s: last run exit %d: %s" % (resilience, r.returncode, r.stderr.decode()))
        ok &= check(oracle_sha(path) == hashlib.sha256(plain).hexdigest(), resilience + ": oracle after the last job")
        print("ok" if ok else "FAILED", "kill -9: %s resilience (a whole job %.2f s), %d kills, %d runs, "
              "%d jobs finished" % (resilience, duration, n_kills, runs, jobs + 1), flush=True)


def main():
    binary, work = sys.argv[1], sys.argv[2]
    round_trips(binary, work)
    every = every_suite(binary, work)
    round_trips_tc5(binary, work)
    refusals(binary, work)
    kills(binary, work)
    print("migrated in place and checked by the oracle (segments and both resiliences): " +
          ", ".join("%s/%s/%s" % (m, e, p) for m, e, p, _ in COMBOS) + ", TrueCrypt 5.x xts/aes/sha512")
    print("migrated in place and checked by the oracle (one segment): " + ", ".join(every))
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
