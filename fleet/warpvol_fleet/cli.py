"""warpvol-fleet COMMAND: `reencrypt` (on Ray), and for Slurm job arrays `preflight`, `run-one`, `report`.

Exit codes are warpvol's (README "Exit codes"): 0 every container done; 1 usage or a bad manifest; otherwise the
first failing container's warpvol code (2 wrong credentials, 3 I/O or a task lost for good, 4 format, 5 busy,
6 interrupted).
"""
import argparse
import os
import shutil
import sys

from .manifest import ManifestError


def _resource(text: str):
    name, sep, amount = text.partition("=")
    try:
        value = float(amount) if sep else 1.0
    except ValueError:
        value = -1.0
    if not name or value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=AMOUNT with AMOUNT > 0")
    return name, value


def _gpus(text: str):
    if text == "auto":
        return text
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if v < 0:
        raise argparse.ArgumentTypeError("--gpus-per-task takes auto or a number >= 0")
    return v


def _common(p: argparse.ArgumentParser):
    p.add_argument("--manifest", "-m", required=True, help="JSON lines, one container each (credentials-file "
                   "format with password_file/new_password_file; see README 'Many machines')")
    p.add_argument("--warpvol", default=os.environ.get("WARPVOL", "warpvol"),
                   help="the warpvol binary on the nodes (default: $WARPVOL or warpvol on PATH)")
    p.add_argument("--new-encryption", help="new chain for every container (a manifest line's new_encryption wins)")
    p.add_argument("--new-hash", help="new PRF for every container (a manifest line's new_hash wins)")
    p.add_argument("--resilience", choices=("checksum", "journal"), help="warpvol reencrypt --resilience")
    p.add_argument("--hotzone-size", help="warpvol reencrypt --hotzone-size")
    p.add_argument("--engine", choices=("auto", "cpu", "gpu"), help="warpvol reencrypt --engine")
    p.add_argument("--busy-wait", type=float, default=60.0, metavar="S",
                   help="seconds a run waits for a container locked by an earlier attempt (default 60)")
    p.add_argument("--report", help="report file (default MANIFEST.fleet-report.json)")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="warpvol-fleet", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="command", required=True)

    p = sub.add_parser("reencrypt", help="re-encrypt every container of the manifest on a Ray cluster")
    _common(p)
    p.add_argument("--address", default="auto",
                   help="Ray cluster: auto (the cluster `ray start` made on this machine), ray://HOST:10001 "
                        "(Ray Client), HOST:6379 (GCS), or local (a one-machine Ray just for this run)")
    p.add_argument("--skip-bad", action="store_true", help="when some containers fail the pre-flight, run the others")
    p.add_argument("--cpus-per-task", type=float, default=1.0, help="Ray CPUs per container (default 1)")
    p.add_argument("--gpus-per-task", type=_gpus, default="auto",
                   help="GPU share per container: auto (1 when the cluster has GPUs, else 0), 0, 0.5, 1 ...")
    p.add_argument("--gpu-resource", default="GPU", help="the resource that stands for a GPU (default GPU)")
    p.add_argument("--resource", type=_resource, action="append", default=[], metavar="NAME=AMOUNT",
                   help="a custom resource every re-encryption task needs, e.g. storage tokens (repeatable)")
    p.add_argument("--max-retries", type=int, default=3, help="Ray retries per task (default 3)")
    p.add_argument("--progress-json", action="store_true", help="progress as JSON lines on stderr")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line; the report only")

    p = sub.add_parser("preflight", help="check every container on this machine (no Ray); nothing is written")
    _common(p)
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="containers checked at once")

    p = sub.add_parser("run-one", help="re-encrypt the manifest's INDEX-th container here (a Slurm array task)")
    _common(p)
    p.add_argument("--index", type=int, required=True, help="0-based, among the manifest's container lines")

    p = sub.add_parser("report", help="the report of what the state file records")
    _common(p)
    return top


def _progress_mode(args) -> str:
    if args.progress_json:
        return "json"
    if args.quiet:
        return "quiet"
    return "tty" if sys.stderr.isatty() else "plain"


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if os.sep not in args.warpvol and shutil.which(args.warpvol) is None and args.command != "reencrypt":
        print(f"warpvol-fleet: {args.warpvol} not found on PATH (give --warpvol PATH)", file=sys.stderr)
        return 1
    try:
        if args.command == "reencrypt":
            from .driver import Driver, FleetError
            from .progress import FleetProgress
            from .report import print_table
            try:
                d = Driver(args, FleetProgress(_progress_mode(args)))
                rows, summary = d.run()
            except FleetError as ex:
                print(f"warpvol-fleet: {ex}", file=sys.stderr)
                return ex.code
            print_table(rows, summary, sys.stdout, os.path.dirname(os.path.abspath(args.manifest)))
            return summary["exit_code"]
        from . import local
        return {"preflight": local.preflight_all, "run-one": local.run_one,
                "report": local.report_from_state}[args.command](args)
    except ManifestError as ex:
        print(f"warpvol-fleet: {ex}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
