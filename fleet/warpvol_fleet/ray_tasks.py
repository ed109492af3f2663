"""What runs inside Ray: the two task bodies around volume_job, and the actor that carries progress events from the
workers to the driver (volume paths, byte counts, node and process ids: nothing secret)."""
import socket

import ray

from . import volume_job


def node_identity() -> dict:
    ctx = ray.get_runtime_context()
    return {"node_id": ctx.get_node_id(), "node_ip": ray.util.get_node_ip_address(), "hostname": socket.gethostname()}


def preflight_task(task: dict, settings: dict) -> dict:
    res = volume_job.preflight(task, volume_job.Settings.from_dict(settings))
    return dict(res, **node_identity())


def reencrypt_task(task: dict, settings: dict, hub) -> dict:
    where = node_identity()

    def report(ev: dict):
        try:
            hub.report.remote(task["volume"], ev)  # fire and forget: progress must never fail a re-encryption
        except Exception:
            pass

    try:
        # Synchronous, so that the result carries its attempt number even when progress events arrive late.
        where["attempt"] = ray.get(hub.started.remote(task["volume"]), timeout=30)
    except Exception:
        where["attempt"] = None
    res = volume_job.reencrypt(task, volume_job.Settings.from_dict(settings), report, where)
    return dict(res, **where)


@ray.remote(num_cpus=0, max_restarts=-1)
class ProgressHub:
    def __init__(self):
        self.events = []
        self.attempts = {}

    def started(self, volume: str) -> int:
        self.attempts[volume] = self.attempts.get(volume, 0) + 1
        return self.attempts[volume]

    def report(self, volume: str, ev: dict):
        self.events.append((volume, ev))

    def drain(self):
        out, self.events = self.events, []
        return out
