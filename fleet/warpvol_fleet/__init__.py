"""warpvol-fleet: re-encrypt many VeraCrypt containers on many machines.

Each container is one Ray task that runs the real ``warpvol reencrypt`` on a node that reaches the file; this
package schedules, retries, aggregates progress and reports, and never touches key material or data itself.

How it fits together
--------------------
* The manifest (JSON lines) is reencrypt's own credentials-file format, one container per line: ``volume``,
  ``password_file``, ``keyfiles``, ``pim``, ``new_password_file``, ``new_keyfiles``, ``new_pim``, ``no_keyfiles``,
  ``hidden_password_file``, ``hidden_keyfiles``, ``hidden_pim``, ``no_hidden_volume``; plus three fleet keys:
  ``new_encryption`` and ``new_hash`` (per-container ``--new-encryption``/``--new-hash``) and ``resources``
  (Ray custom resources the task needs, e.g. ``{"nas-a": 0.01}`` so it runs only on nodes that mount ``nas-a``).
  Relative paths are relative to the manifest's folder; every node must see the same paths (shared storage).
* Pre-flight (``volume_job.preflight``): ``warpvol reencrypt --dry-run`` per container, as Ray tasks, before any
  container is written: the file exists, the credentials open it, no other process holds its lock (a mount or a
  running re-encryption), a journal left by an interrupted run verifies and will be resumed, the new headers can
  be built. One failure stops the fleet unless ``--skip-bad``.
* Run (``volume_job.reencrypt``): ``warpvol reencrypt`` per container. The journal lives next to the container,
  on the shared storage, so a retry on *another* node resumes where the dead attempt stopped. A task whose
  node dies or whose worker is killed is retried by Ray (``max_retries``); a ``warpvol`` killed by a signal, or
  finding the container still locked by the dying attempt, raises ``TransientFailure`` (retried too, after a wait
  for the lock). A wrong password is not retried.
* Rerun: results are appended to ``MANIFEST.fleet-state.jsonl`` as they arrive; a rerun of the same command skips
  what is recorded done (for the same settings), resumes what has a journal and starts the rest. A container that
  no longer opens with its old credentials but opens with the new ones (result lost with a driver that died) is
  reported ``already-done`` instead of failing.

Secrets
-------
Passwords never enter Ray: manifest lines with inline ``password``/``new_password``/``hidden_password`` are
refused. Task arguments, return values and the progress actor's messages are stored in Ray's object store and
GCS (and can end up in its logs and dashboard), readable by anything that can connect to the cluster, so only
*paths* travel: the task writes a private credentials file (mode 0600, paths only) for ``warpvol``, which reads the
password files itself on the node. The password files must therefore be readable on the nodes (the same shared
storage as the containers, with the same access control). Per-task Ray secrets were not chosen: Ray has no secret
store, and anything passed to a task is serialized into the object store in the clear.
"""

__version__ = "0.1.0"
