"""``audit_dataset``: the local engine's per-record path mapped over a Ray Dataset by a pool of actors.

Each actor builds its auditor once (the judge's models load once per actor) and audits a batch of rows with
``rt4chart.jobs.batch.audit_lines``, the function the local engine's lines come from, so validation, error rows and the
output line are the local engine's. Before the audit, one pass over the rows' ids finds the rows that repeat an
earlier row's id (the local engine's "duplicate id" error, which needs all rows). Actors are restarted and their
batch retried when their process dies (Ray Data's defaults for actor pools: unlimited ``max_restarts`` and
``max_task_retries``); a batch's rows are emitted only when the whole batch is done, so a retry loses and repeats
nothing.

With an LLM judge and ``rpm``, every actor paces its requests through one named actor (``RateBucket``, a
``rt4chart.llm.backend.RateLimiter``): the limit holds for the whole cluster, not per worker. The response cache is
the LLM judge's own (``cache_path``; by default a file in each node's user cache folder).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any, Container, Optional, Union

import pyarrow as pa
import ray
from ray.data.dataset import MaterializedDataset

from ..jobs.batch import audit_lines
from ..integrations.frame import result_columns
from ..io import FieldMap, record_ids
from ..judges.registry import auditor_for
from ..llm.pacing import RateLimiter
from ._read import INDEX, numbered, row_of

#: the columns of ``audit_dataset``'s rows: the input row's ``index`` and ``id`` (as a string), the flat result
#: columns of ``rt4chart.integrations.frame.result_columns`` but ``claims``, and ``result``, the whole output line as
#: JSON (the line the local engine writes)
OUTPUT_SCHEMA = pa.schema([
    ("index", pa.int64()), ("id", pa.string()), ("label", pa.string()), ("hallucinated", pa.bool_()),
    ("score", pa.float64()), ("n_claims", pa.int64()),
    ("spans", pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64())]))),
    ("error", pa.string()), ("error_field", pa.string()), ("error_kind", pa.string()), ("result", pa.string()),
])
_KEYS = pa.schema([("index", pa.int64()), ("key", pa.string())])


@ray.remote(num_cpus=0)
class RateBucket:
    """One ``RateLimiter`` for a whole cluster: workers book their request starts here."""

    def __init__(self, rpm: float) -> None:
        self.limiter = RateLimiter(rpm)

    def reserve(self) -> float:
        return self.limiter.reserve(time.monotonic())


class SharedLimiter:
    """A ``rt4chart.llm.backend.Limiter`` that books request starts with a ``RateBucket`` actor."""

    def __init__(self, bucket: Any) -> None:
        self.bucket = bucket

    async def wait(self) -> None:
        delay = await self.bucket.reserve.remote()
        if delay > 0:
            await asyncio.sleep(delay)


def output_table(lines: list[dict]) -> pa.Table:
    """The ``OUTPUT_SCHEMA`` rows of output lines."""
    rows = []
    for line in lines:
        flat = result_columns(line)
        flat.pop("claims")
        rid = line.get("id")
        rows.append({"index": line["index"], "id": None if rid is None else str(rid), **flat,
                     "result": json.dumps(line, ensure_ascii=False)})
    return pa.Table.from_pylist(rows, schema=OUTPUT_SCHEMA)


def is_factory(judge: Any) -> bool:
    """True for what ``audit_dataset`` calls to make a judge in each worker: a class, or a callable that is not a
    judge itself (``functools.partial(MyJudge, ...)``)."""
    return isinstance(judge, type) or (callable(judge) and not hasattr(judge, "judge"))


class AuditBatches:
    """The Ray Data actor: builds the auditor once, then audits batches of numbered rows into output rows."""

    def __init__(self, judge: Union[str, Any], options: dict, fields: FieldMap, shared: list) -> None:
        done, repeated, bucket = ray.get(shared[0]), ray.get(shared[1]), shared[2]
        options = dict(options)
        if bucket is not None:
            options["limiter"] = SharedLimiter(bucket)
        self.auditor = auditor_for(judge() if is_factory(judge) else judge, **options)
        self.fields, self.done, self.repeated = fields, done, repeated
        self.loop = asyncio.new_event_loop()  # one loop for the actor's life: LLM connections are kept

    def __call__(self, batch: pa.Table) -> pa.Table:
        rows = [row_of(record) for record in batch.to_pylist()]
        lines = self.loop.run_until_complete(
            audit_lines(rows, self.auditor, fields=self.fields, done=self.done, repeated=self.repeated))
        return output_table(lines)


def _id_keys(batch: pa.Table, fields: FieldMap) -> pa.Table:
    pairs = list(record_ids((row_of(record) for record in batch.to_pylist()), fields))
    return pa.Table.from_pylist([{"index": i, "key": k} for i, k in pairs], schema=_KEYS)


def repeated_rows(ds: "ray.data.Dataset", fields: FieldMap) -> frozenset[int]:
    """The indices of the numbered rows whose id repeats the id of a row before them (one pass over the ids; the
    driver holds one entry per distinct id)."""
    first: dict[str, int] = {}
    repeated: set[int] = set()
    keys = ds.map_batches(_id_keys, fn_kwargs={"fields": fields}, batch_format="pyarrow", batch_size=1024)
    for batch in keys.iter_batches(batch_format="pyarrow", batch_size=None):
        for index, key in zip(batch.column("index").to_pylist(), batch.column("key").to_pylist()):
            seen = first.get(key)
            if seen is None:
                first[key] = index
            elif index < seen:
                repeated.add(seen)
                first[key] = index
            else:
                repeated.add(index)
    return frozenset(repeated)


def audit_dataset(
    ds: "ray.data.Dataset",
    judge: Union[str, Any] = "auto",
    *,
    id: str = "id",
    context: str = "context",
    question: str = "question",
    answer: str = "answer",
    task: str = "task",
    workers: Optional[int] = None,
    cpus_per_worker: float = 1,
    batch_size: int = 16,
    done: Container[str] = frozenset(),
    **audit_options: Any,
) -> "ray.data.Dataset":
    """Audit every row of ``ds`` on the Ray cluster; a Dataset with one ``OUTPUT_SCHEMA`` row per input row, in
    input order (lazy: it runs when consumed or written).

    ``ds`` is a Dataset of records (``id``, ``context``, ``question``, ``answer`` and ``task`` name its columns) or
    of ``read_records``'s rows. ``judge`` is a judge name, a Judge object (pickled to every worker), or a Judge
    class or other callable without arguments that each worker calls once to make its judge; ``audit_options``
    go to ``rt4chart.judges.registry.build_auditor`` (``window``, ``base_url``, ``model``, ``rpm``, ``cache_path``,
    ...; ``rpm`` is one limit for all workers together). ``workers``: the size of the actor pool (default: from one
    up to the cluster's CPUs / ``cpus_per_worker``); each worker reserves ``cpus_per_worker`` CPUs and gives the
    local judge's tagger as many threads. ``batch_size`` rows are audited together (a worker that dies redoes at
    most its batch). ``done``: keys (``rt4chart.jobs.resume.row_key``) of rows an earlier run wrote, left out of the
    output. Numbering a Dataset of records executes it once and turns on ``preserve_order`` in its context.
    Raises ``ConfigError`` for bad options of a named judge (its auditor is built once here to check them).
    """
    fields = FieldMap(id=id, context=context, question=question, answer=answer, task=task)
    options = dict(audit_options)
    if isinstance(judge, str):
        options.setdefault("threads", max(1, int(cpus_per_worker)))
        auditor_for(judge, **options)  # bad options fail here, not in every actor
    if batch_size < 1:
        from ..errors import ConfigError

        raise ConfigError(f"batch_size must be at least 1, got {batch_size!r}")
    if INDEX not in (ds.columns() or ()):
        ds = numbered(ds, batch_size)
    repeated = repeated_rows(ds, fields)
    bucket = None
    if options.get("rpm"):
        bucket = RateBucket.options(name=f"rt4chart-rpm-{uuid.uuid4().hex[:12]}").remote(options["rpm"])
    shared = [ray.put(frozenset(done)), ray.put(repeated), bucket]
    # more workers than blocks (a block is a batch of the numbered rows) would only idle
    cap = max(1, ds.num_blocks()) if isinstance(ds, MaterializedDataset) else None
    pool = workers or max(1, int(ray.cluster_resources().get("CPU", 1) // cpus_per_worker))
    pool = min(pool, cap) if cap is not None else pool
    compute = (ray.data.ActorPoolStrategy(size=pool) if workers is not None
               else ray.data.ActorPoolStrategy(min_size=1, max_size=pool))
    out = ds.map_batches(
        AuditBatches, batch_size=batch_size, batch_format="pyarrow", compute=compute,
        fn_constructor_kwargs={"judge": judge, "options": options, "fields": fields, "shared": shared},
        num_cpus=cpus_per_worker)  # Ray Data's actor pools restart dead actors and retry their tasks by default
    out.context.execution_options.preserve_order = True
    out.context.raise_original_map_exception = True  # an LLM configuration error reaches the driver as itself
    return out
