"""`warpvol-fleet reencrypt`: the Ray driver. Pre-flight of every container as Ray tasks, then one re-encryption
task per container, progress from the workers, results into the state file as they arrive, a final report.

Scheduling is Ray's: each task asks for --cpus-per-task CPUs, a GPU share when the cluster has GPUs (Ray then sets
CUDA_VISIBLE_DEVICES and warpvol's default engine uses that GPU), the --resource amounts (e.g. storage tokens a node
declares with `ray start --resources`, bounding how many containers hit its storage at once) and the manifest
line's own resources (locality: only nodes that mount the container's storage).
"""
import logging
import os
import time
from typing import Dict, List, Tuple

from . import report as rep
from .manifest import Entry, read_manifest
from .progress import FleetProgress
from .state import StateFile, is_done, report_path, state_path
from .volume_job import Settings


class FleetError(Exception):
    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def _connect(address: str):
    import ray
    kw = dict(namespace="warpvol-fleet", log_to_driver=False, logging_level=logging.WARNING)
    try:
        if address == "local":
            ray.init(**kw)
        else:
            ray.init(address=address, **kw)
        return ray
    except Exception as ex:  # ConnectionError, RuntimeError, ValueError: any reason means no cluster
        hint = ""
        # Ray 2.60's `ray start` turns token authentication on; a driver sends its token only in token mode. Not
        # set here on a guess: in token mode, actors of a cluster WITHOUT authentication die before they run,
        # and the mode cannot be changed once this process has tried to connect.
        if address != "local" and not os.environ.get("RAY_AUTH_MODE"):
            hint = " (a cluster that `ray start` made wants its token: run with RAY_AUTH_MODE=token)"
        raise FleetError(f"cannot connect to the Ray cluster at {address}: {str(ex).splitlines()[0]}{hint}", 3)


def _failure_reason(ex: Exception) -> str:
    cause = getattr(ex, "cause", None)
    if cause is not None:
        return f"{type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}"
    text = str(ex).strip().splitlines()
    return f"{type(ex).__name__}: {text[0] if text else ''}"


class Driver:
    def __init__(self, args, progress: FleetProgress):
        self.args = args
        self.progress = progress
        self.settings = Settings(warpvol=args.warpvol, new_encryption=args.new_encryption, new_hash=args.new_hash,
                                 resilience=args.resilience, hotzone_size=args.hotzone_size, engine=args.engine,
                                 busy_wait_s=args.busy_wait)
        self.defaults = {"new_encryption": args.new_encryption, "new_hash": args.new_hash}
        self.manifest = os.path.abspath(args.manifest)
        self.entries: List[Entry] = read_manifest(self.manifest)
        self.state = StateFile(state_path(self.manifest))
        self.rows: Dict[str, dict] = {e.volume: rep.new_row(e) for e in self.entries}
        self.fp = {e.volume: e.fingerprint(self.defaults) for e in self.entries}
        self.nodes_used = set()
        self.gpus = 0.0
        self.workers: Dict[str, set] = {}  # volume -> {(node id, worker pid)} of its attempts
        self.timing: Dict[str, float] = {}

    # ---- bookkeeping ----
    def _record(self, e: Entry):
        row = self.rows[e.volume]
        if row.get("node_id"):
            self.nodes_used.add(row["node_id"])
        self.state.append(dict(row, fingerprint=self.fp[e.volume], manifest=self.manifest))

    def _options(self, ray, e: Entry, run: bool) -> dict:
        resources = dict(e.resources)
        opts = dict(num_cpus=self.args.cpus_per_task, max_retries=self.args.max_retries)
        if run:
            for k, v in self.args.resource:
                resources[k] = resources.get(k, 0) + v
            if self.gpus > 0:
                if self.args.gpu_resource == "GPU":
                    opts["num_gpus"] = self.gpus
                else:
                    resources[self.args.gpu_resource] = resources.get(self.args.gpu_resource, 0) + self.gpus
        if resources:
            opts["resources"] = resources
        return opts

    @staticmethod
    def _hub_placement(ray) -> dict:
        """The progress actor on the head node: the cluster does not outlive the head anyway, while a worker node
        can go at any time (the actor would restart, but with its attempt counts lost)."""
        try:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
            head = [n["NodeID"] for n in ray.nodes() if n.get("Alive") and
                    "node:__internal_head__" in n.get("Resources", {})]
            if head:
                # Not soft: a soft affinity sent it to a worker node when the head (0 CPUs) had no idle worker.
                return {"scheduling_strategy": NodeAffinitySchedulingStrategy(node_id=head[0], soft=False)}
        except Exception:
            pass
        return {}

    def _wait_all(self, ray, refs: Dict[object, Entry], hub, on_result):
        pending = dict(refs)
        while pending:
            done, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0.5)
            self._drain(ray, hub)
            for ref in done:
                e = pending.pop(ref)
                try:
                    res = ray.get(ref)
                except Exception as ex:  # the task failed for good: its retries used up, or a bug
                    res = {"status": "failed", "code": 3, "reason": f"task failed: {_failure_reason(ex)}"}
                on_result(e, res)
            self.progress.tick()
        self._drain(ray, hub)

    def _drain(self, ray, hub):
        if hub is None:
            return
        try:
            events = ray.get(hub.drain.remote(), timeout=10)
        except Exception:
            return  # the hub is restarting (its node died); progress resumes with the next events
        for volume, ev in events:
            if volume in self.rows and ev.get("event") == "started":
                row = self.rows[volume]
                # Each attempt runs in its own worker process; the actor's count covers attempts whose events
                # were lost, the distinct workers cover an actor that restarted.
                workers = self.workers.setdefault(volume, set())
                workers.add((ev.get("node_id"), ev.get("worker_pid")))
                row["attempts"] = max(row["attempts"], ev.get("attempt") or 0, len(workers))
                row["started"] = row["started"] or rep.now_iso()
            self.progress.event(volume, ev)

    # ---- the run ----
    def run(self) -> Tuple[List[dict], dict]:
        t0 = time.monotonic()
        todo: List[Entry] = []
        recorded = self.state.load()
        for e in self.entries:
            rec = recorded.get(e.volume)
            if rec is not None and is_done(rec, self.fp[e.volume]):
                rep.row_from_record(self.rows[e.volume], rec)
                self.progress.event(e.volume, {"event": "already-done", "reason": self.rows[e.volume]["reason"]})
            else:
                todo.append(e)
        if todo:
            try:
                self._run(todo)
            except KeyboardInterrupt:
                for e in todo:
                    if self.rows[e.volume]["result"] is None:
                        self.rows[e.volume].update(result="interrupted", code=6,
                                                   reason="the driver was interrupted (a rerun resumes)")
        self.progress.close()
        rows = [self.rows[e.volume] for e in self.entries]
        summary = rep.summarize(rows, time.monotonic() - t0, len(self.nodes_used), self.timing.get("run_seconds"))
        summary.update(self.timing)
        summary.update(manifest=self.manifest, address=self.args.address, finished=rep.now_iso())
        rep.write_json(self.args.report or report_path(self.manifest), rows, summary)
        return rows, summary

    def _run(self, todo: List[Entry]):
        t = time.monotonic()
        ray = _connect(self.args.address)
        self.timing["connect_seconds"] = round(time.monotonic() - t, 3)
        from .ray_tasks import ProgressHub, preflight_task, reencrypt_task
        from .volume_job import TransientFailure
        try:
            gpus = self.args.gpus_per_task
            if gpus == "auto":
                gpus = 1.0 if ray.cluster_resources().get(self.args.gpu_resource, 0) > 0 else 0.0
            self.gpus = float(gpus)
            # A task asking for a resource no node has would wait forever: refuse that up front.
            have = ray.cluster_resources()
            wanted = [k for k, _ in self.args.resource] + ([self.args.gpu_resource] if self.gpus > 0 else [])
            missing = sorted({k for k in wanted if k not in have})
            if missing:
                raise FleetError(f"no node of the cluster has the resource {', '.join(missing)} "
                                 f"(--resource, --gpu-resource, --gpus-per-task)", 1)
            hub = ProgressHub.options(**self._hub_placement(ray)).remote()

            # ---- pre-flight: every container, nothing written ----
            t = time.monotonic()
            pre = ray.remote(preflight_task)
            ready: List[Tuple[Entry, dict]] = []
            bad: List[Entry] = []
            refs = {}
            for e in todo:
                absent = sorted(k for k in e.resources if k not in have)
                if absent:
                    self.rows[e.volume].update(result="failed", code=1, reason=(
                        f"pre-flight: no node of the cluster has the resource {', '.join(absent)} (manifest line "
                        f"{e.line})"))
                    bad.append(e)
                    self._record(e)
                    continue
                refs[pre.options(retry_exceptions=[TransientFailure], **self._options(ray, e, False))
                     .remote(e.to_task(), self.settings.to_dict())] = e

            def preflight_done(e: Entry, res: dict):
                self.progress.preflight_result()
                row = self.rows[e.volume]
                rep.apply_result(row, res)
                if res.get("status") == "ready":
                    row["result"] = None
                    row["finished"] = None
                    row["node"] = row["node_id"] = None
                    ready.append((e, res))
                elif res.get("status") == "already-done":
                    self._record(e)
                    self.progress.event(e.volume, {"event": "already-done", "reason": res.get("description")})
                else:
                    row["reason"] = "pre-flight: " + row["reason"]
                    bad.append(e)
                    self._record(e)
                    self.progress.event(e.volume, {"event": "failed", "code": row["code"], "reason": row["reason"]})

            self.progress.start_preflight(len(refs))
            self._wait_all(ray, refs, None, preflight_done)
            self.timing["preflight_seconds"] = round(time.monotonic() - t, 3)
            if bad and not self.args.skip_bad:
                code = self.rows[min(bad, key=lambda e: e.line).volume]["code"]
                for e, _ in ready:
                    self.rows[e.volume].update(
                        result="skipped", code=code,
                        reason=f"not started: pre-flight failed for {len(bad)} container(s) (nothing was written; "
                               f"--skip-bad runs the others)")
                    self.progress.event(e.volume, {"event": "skipped", "reason": self.rows[e.volume]["reason"]})
                return

            # ---- re-encryption: one task per container ----
            t = time.monotonic()
            self.progress.start_run({e.volume: res["total_bytes"] for e, res in ready})
            run = ray.remote(reencrypt_task)
            refs = {}
            for e, res in ready:
                self.rows[e.volume]["resumed"] = bool(res.get("resume"))
                refs[run.options(retry_exceptions=[TransientFailure], **self._options(ray, e, True))
                     .remote(e.to_task(), self.settings.to_dict(), hub)] = e

            def run_done(e: Entry, res: dict):
                row = self.rows[e.volume]
                resumed = row["resumed"]
                rep.apply_result(row, res)
                row["attempts"] = max(row["attempts"], res.get("attempt") or 0, 1)
                row["resumed"] = bool(res.get("resumed")) or resumed
                self._record(e)
                self.progress.finished(e.volume, row["result"], {k: row[k] for k in (
                    "code", "reason", "node", "node_id", "bytes", "wall_seconds", "resumed", "attempts")})

            self._wait_all(ray, refs, hub, run_done)
            self.timing["run_seconds"] = time.monotonic() - t
        finally:
            ray.shutdown()
