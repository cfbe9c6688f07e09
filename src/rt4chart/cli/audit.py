"""``rt4chart audit``: audit the records of a file (or stdin) with a judge and write one result line per record, on
this machine (``--engine local``) or on a Ray cluster (``--engine ray``); ``--estimate`` counts an LLM judge's calls
and cost instead. Exit codes: see :mod:`rt4chart.cli`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Optional

import click

from ..audit.citations import FLAGGED
from ..audit.config import AuditConfig, split_settings
from ..errors import BackendError, ConfigError, InputError, MissingDependencyError, MlflowError, PhoenixError
from ..io.input_check import check_input, tabular
from ._options import EXIT_OK, EXIT_RECORD_ERRORS, EXIT_RULE_TRIPPED, EXIT_USAGE, auditor_options, \
    estimate_options, field_options, format_option, judge_options


def build_auditor(**judge_kw: Any) -> Any:
    """The auditor for a command's ``judge_options``; the LLM's environment variables are read here, at the edge."""
    from ..judges.llm import llm_env
    from ..judges.registry import build_auditor as from_options

    return from_options(**auditor_options(judge_kw, llm_env(os.environ)))


def _print_summary(summary: Any, console: Any, *, baseline: bool = False) -> None:
    from rich.table import Table

    table = Table(title="rt4chart audit", show_header=False)
    table.add_row("records", f"{summary.records}" + (f" (+{summary.skipped} already done)" if summary.skipped else ""))
    ok = max(summary.ok, 1)
    table.add_row("audited", str(summary.ok - summary.reused))
    if baseline:
        table.add_row("reused from baseline", str(summary.reused))
    table.add_row("hallucinated", f"{summary.hallucinated} ({summary.hallucinated / ok:.1%})" if summary.ok else "0")
    table.add_row("needs review", f"{summary.needs_review} (unverified)" if summary.needs_review else "0")
    for label in ("entailed", "contradicted", "baseless", "unverified"):
        table.add_row(f"answers {label}", str(summary.answer_labels.get(label, 0)))
    for label in ("entailed", "contradicted", "baseless", "unverified"):
        table.add_row(f"claims {label}", str(summary.claim_labels.get(label, 0)))
    table.add_row("errors", str(summary.errors) + (f" (+{summary.previous_errors} in earlier runs)"
                                                   if summary.previous_errors else ""))
    if summary.citations:
        table.add_row("claims by citation", ", ".join(f"{status} {n}" for status, n in
                                                      sorted(summary.citations.items())))
    if summary.noted:
        table.add_row("audited with notes", f"{summary.noted} (see their errors field)")
    if summary.failed_calls:
        table.add_row("with failed LLM calls", f"{summary.failed_calls} (their claims are unverified)")
    if summary.calls:
        table.add_row("LLM calls", str(summary.calls))
        table.add_row("tokens in/out", f"{summary.prompt_tokens}/{summary.completion_tokens}")
        table.add_row("cost (USD)", f"{summary.cost_usd:.4f}")
    table.add_row("time", f"{summary.seconds:.1f} s")
    console.print(table)


@click.command()
@click.argument("input_path", metavar="INPUT", type=str)
@click.option("-o", "--output", type=click.Path(), default=None,
              help="results JSONL (default, or -: stdout); with --engine ray also a Parquet folder (a folder, or a "
              "path ending in / or .parquet)")
@click.option("--resume", is_flag=True,
              help="keep the lines already in OUTPUT (error lines too) and append the other records")
@click.option("--retry-errors", is_flag=True,
              help="--resume, then audit the records of OUTPUT's error lines again and rewrite OUTPUT atomically")
@click.option("--baseline", type=click.Path(dir_okay=False), default=None, metavar="PREV.jsonl",
              help="results of an earlier run: records whose context, question, answer and judge configuration "
              "are unchanged get their PREV result again; only the others are audited")
@format_option
@click.option("--from", "source", type=click.Choice(["records", "openinference", "phoenix", "mlflow"]),
              default="records", show_default=True,
              help="openinference: INPUT is a span file (OTLP JSON, or a Phoenix export as Parquet "
              "or JSONL), audited as one record per trace: its retrieved documents and its last LLM output; "
              "phoenix: INPUT is a Phoenix server (http://HOST:PORT) whose --project spans are read the same way; "
              "mlflow: INPUT is an MLflow tracking URI (http://HOST:PORT, or sqlite:///FILE or file:PATH with "
              "the [mlflow] extra) whose --experiment traces are audited, one record per trace: the documents of "
              "its RETRIEVER spans and its root span's output")
@click.option("--project", default=None, help="--from phoenix: the project whose traces are audited (name or id)")
@click.option("--experiment", default=None, help="--from mlflow: the experiment whose traces are audited (its name)")
@click.option("--since", default=None, metavar="TIME",
              help="--from phoenix or mlflow: only spans (traces) that started at or after TIME (ISO 8601, e.g. "
              "2026-01-31T12:00Z)")
@click.option("--max-traces", type=click.IntRange(min=1), default=None, metavar="N",
              help="--from mlflow: the N most recent traces only")
@click.option("--write-back", is_flag=True,
              help="--from phoenix or mlflow: write each result back as a trace annotation (Phoenix) or feedback "
              "assessment (MLflow) named rt4chart, and each flagged claim on the span the answer came from; a "
              "re-run updates them (needs -o)")
@click.option("--phoenix-api-key", envvar="PHOENIX_API_KEY", default=None,
              help="--from phoenix: the API key of a Phoenix server with authentication (default: $PHOENIX_API_KEY)")
@field_options
@click.option("--gate-accept", type=click.FloatRange(0.0, 1.0, max_open=True), default=None,
              help="accept this fraction of lowest-risk records with the RAGScope gate, without judging them; "
              "the gate reads words only and misses contradictions that reuse the context's words "
              "(rt4chart triage --help)")
@click.option("--citations/--no-citations", default=None,
              help="check the answer's citation markers ([1], [2][3], [1, 3]; marker n = the n-th passage) against "
              "the passages of a list context: per claim supported / misattributed / unsupported / "
              "contradicted_by_cited / uncited / invalid, per answer ALCE citation recall and precision, in each "
              "result's citation_check (docs/citations.md). Default: every answer that carries citations over a "
              "list context; --citations: every answer over a list context; --no-citations: none")
@click.option("--fail-on", "fail_on", multiple=True, metavar="STATUS",
              type=click.Choice([s.value for s in FLAGGED]),
              help="exit 3 when a claim's citation has this status (repeat for several; for CI)")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar or summary")
@click.option("--allow-empty", is_flag=True, help="accept an INPUT without records (else an input error, exit 2)")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local = this process; ray = a pool of Ray workers (pip install 'rt4chart[ray]'), on this "
              "machine or on the cluster at --address")
@click.option("--address", default=None,
              help="--engine ray: the Ray cluster to join (auto = the one `ray start` started here or RAY_ADDRESS "
              "names, HOST:PORT or ray://HOST:PORT; default: start a new one on this machine for this run)")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="--engine ray: the number of workers, each one CPU with its own judge (default: up to the "
              "cluster's CPUs)")
@judge_options
@estimate_options
def audit(**args: Any) -> None:
    """Audit every record of INPUT (JSONL, JSON array, CSV or Parquet; - for stdin) and write one result per
    record. With --engine ray, INPUT may also be a folder of such files, or a URI that pyarrow reads (s3://...).

    Each record needs id, context (string or list of strings), answer, and optionally question. With --estimate,
    print what the LLM judge would spend on them instead (no model is called; -o receives the estimate as JSON).
    With --gguf, the model server is started for the run and stopped after it. With --from phoenix, INPUT is a
    Phoenix server: its project's traces are audited, and --write-back annotates them there (docs/phoenix.md); with
    --from mlflow, INPUT is an MLflow tracking URI and --experiment names the experiment (docs/mlflow.md).
    """
    if args.get("output") == "-":
        args["output"] = None  # "-o -": stdout, as without -o
    if args.get("gguf") is None:
        return _audit(**args)
    from .._console import print_error, stderr_console
    from ..llm.managed import managed_model

    if args["estimate"] or args["engine"] != "local":
        raise click.UsageError("--gguf works with --engine local, without --estimate")
    try:
        with managed_model(args, binary=os.environ.get("RT4CHART_LLAMA_SERVER")):
            _audit(**args)
    except ConfigError as exc:
        print_error(stderr_console(), exc)
        sys.exit(EXIT_USAGE)


def _audit(input_path: str, output: Optional[str], resume: bool, retry_errors: bool, baseline: Optional[str],
           fmt: Optional[str], source: str, project: Optional[str], experiment: Optional[str], since: Optional[str],
           max_traces: Optional[int], write_back: bool, phoenix_api_key: Optional[str], fields: Any,
           gate_accept: Optional[float], citations: Optional[bool], fail_on: tuple[str, ...], quiet: bool,
           allow_empty: bool, engine: str, address: Optional[str], workers: Optional[int], estimate: bool,
           tokenizer_file: Optional[str], reasoning_tokens: Optional[int],
           **judge_kw: Any) -> None:
    from .._console import closed_pipe, print_error, print_records, stderr_console
    from ..jobs.batch import read_baseline, run_batch
    from ..jobs.resume import is_parquet_output
    from ..io import json_objects, read_rows, writes_over_input

    console = stderr_console()
    if fail_on and citations is False:
        raise click.UsageError("--fail-on reads the citation check, which --no-citations turns off")
    if citations and (estimate or engine != "local"):
        raise click.UsageError("--citations works with --engine local, without --estimate")
    if source != "records" and (estimate or engine != "local" or fmt):
        raise click.UsageError(f"--from {source} works with --engine local, without --format and --estimate")
    _trace_store_options(source, project, experiment, since, max_traces, write_back, output)
    answers: Optional[dict] = None  # --write-back: the answer span of each trace
    if estimate:
        _estimate(input_path, output, fmt, fields, judge_kw, tokenizer_file, reasoning_tokens, console,
                  resume=resume, retry_errors=retry_errors, gate_accept=gate_accept, baseline=baseline,
                  engine=engine != "local" or address is not None or workers is not None)
        return
    if tokenizer_file is not None or reasoning_tokens is not None:
        raise click.UsageError("--tokenizer and --reasoning-tokens configure --estimate, which is not given")
    if (resume or retry_errors) and not output:
        raise click.UsageError("--resume and --retry-errors need -o/--output")
    if source not in ("phoenix", "mlflow") and writes_over_input(input_path, output):
        raise click.UsageError(f"-o/--output is the input file {input_path}: the results would overwrite it")
    if baseline is not None and writes_over_input(baseline, output):
        raise click.UsageError(f"-o/--output is the baseline {baseline}: write the new results to another file")
    if engine == "ray":
        if baseline is not None:
            raise click.UsageError("--baseline works with --engine local only")
        return _audit_on_ray(input_path, output, resume, retry_errors, fmt, fields, gate_accept, quiet, address,
                             workers, judge_kw, console, allow_empty=allow_empty)
    if address is not None or workers is not None:
        raise click.UsageError("--address and --workers need --engine ray")
    if output and is_parquet_output(output):
        raise click.UsageError(f"-o/--output {output} is a Parquet folder, which only --engine ray writes")
    try:
        auditor = build_auditor(**judge_kw, citations=citations)
        if source == "openinference":
            from ..io.traces import trace_rows

            rows = list(trace_rows(input_path, fields))
        elif source == "phoenix":
            from ..integrations.phoenix import PhoenixClient
            from ..io.traces import answer_spans, span_rows

            with PhoenixClient(input_path, api_key=phoenix_api_key) as client:
                spans = client.spans(project, since=since)
            rows = list(span_rows(spans, fields))
            answers = answer_spans(spans) if write_back else None
        elif source == "mlflow":
            from ..integrations.mlflow import answer_spans as mlflow_answer_spans, trace_rows as mlflow_rows

            with _mlflow_client(input_path) as client:
                traces = client.traces(experiment, since=since, max_traces=max_traces)
            rows = list(mlflow_rows(traces, fields))
            answers = mlflow_answer_spans(traces) if write_back else None
        if source != "records":
            if not rows and not allow_empty:
                raise InputError(f"{input_path} holds no traces (--allow-empty accepts an empty input)")
        else:
            rows = list(read_rows(input_path, fmt))
            check_input(rows, fields, input_path, allow_empty=allow_empty, columns=tabular(input_path, fmt))
        previous = read_baseline(baseline) if baseline is not None else None
    except (ConfigError, InputError, MissingDependencyError, MlflowError, PhoenixError) as exc:
        print_error(console, exc)
        sys.exit(EXIT_USAGE)

    try:
        summary = run_batch(rows, auditor, output, resume=resume, retry_errors=retry_errors, fields=fields,
                            gate_accept=gate_accept, baseline=previous, console=console,
                            progress=not quiet and (console.is_terminal or os.environ.get("RT4CHART_PROGRESS") == "1"))
    except BackendError as exc:  # only configuration errors reach here (bad key, model, endpoint)
        print_error(console, _endpoint_error(exc))
        sys.exit(EXIT_USAGE)
    except ConfigError as exc:  # the gate of --gate-accept could not score the input: nothing was written
        print_error(console, exc)
        sys.exit(EXIT_USAGE)
    except BrokenPipeError:
        closed_pipe()  # `rt4chart audit ... | head`: the reader took what it wanted
    except OSError as exc:
        print_error(console, f"cannot write the output: {exc}")
        sys.exit(EXIT_USAGE)
    if not quiet:
        if output and 0 < summary.records <= 20:
            print_records(json_objects(output), console)
        _print_summary(summary, console, baseline=previous is not None)
    if answers is not None and source == "mlflow":
        _mlflow_write_back(input_path, answers, output, console, quiet)
    elif answers is not None:
        _write_back(input_path, phoenix_api_key, answers, output, console, quiet)
    tripped = {status: summary.citations[status] for status in fail_on if summary.citations[status]}
    if summary.failed:
        sys.exit(EXIT_RECORD_ERRORS)
    if tripped:
        print_error(console, "--fail-on: " + ", ".join(f"{n} claim(s) {status}" for status, n in tripped.items()))
        sys.exit(EXIT_RULE_TRIPPED)
    sys.exit(EXIT_OK)


def _trace_store_options(source: str, project: Optional[str], experiment: Optional[str], since: Optional[str],
                         max_traces: Optional[int], write_back: bool, output: Optional[str]) -> None:
    """The trace store options go with their source: --project with --from phoenix, --experiment and --max-traces
    with --from mlflow, --since with either, and --write-back with either and -o."""
    allowed = {"phoenix": {"--since", "--write-back", "--project"},
               "mlflow": {"--since", "--write-back", "--experiment", "--max-traces"}}.get(source, set())
    given = [flag for flag, value in (("--project", project), ("--experiment", experiment), ("--since", since),
                                      ("--max-traces", max_traces), ("--write-back", write_back))
             if value and flag not in allowed]
    if given:
        where = {"--project": "--from phoenix", "--experiment": "--from mlflow", "--max-traces": "--from mlflow"}
        raise click.UsageError(f"{' and '.join(given)} work with "
                               + " and ".join(sorted({where.get(flag, "--from phoenix or mlflow") for flag in given}))
                               + " only")
    if source == "phoenix" and not project:
        raise click.UsageError("--from phoenix needs --project (the Phoenix project whose traces are audited)")
    if source == "mlflow" and not experiment:
        raise click.UsageError("--from mlflow needs --experiment (the MLflow experiment whose traces are audited)")
    if write_back and not output:
        raise click.UsageError("--write-back needs -o/--output: the annotations are written from the output file")


def _mlflow_client(uri: str) -> Any:
    """The MLflow traces at ``uri``, with the credentials MLflow's own client reads from the environment."""
    from ..integrations.mlflow import MlflowTraces

    user, password = os.environ.get("MLFLOW_TRACKING_USERNAME"), os.environ.get("MLFLOW_TRACKING_PASSWORD")
    return MlflowTraces(uri, token=os.environ.get("MLFLOW_TRACKING_TOKEN"),
                        auth=(user, password) if user and password else None)


def _mlflow_write_back(uri: str, answers: dict, output: str, console: Any, quiet: bool) -> None:
    """``--from mlflow --write-back``: assess the traces of ``output`` in MLflow at ``uri``; exits 2 when that fails
    (``output`` is complete then: it was written first)."""
    from .._console import print_error
    from ..io import read_results

    try:
        with _mlflow_client(uri) as client:
            done = client.write_back(read_results(output), answers)
    except (MlflowError, MissingDependencyError) as exc:
        print_error(console, f"{exc}\nthe audit results in {output} are complete; the assessments were not all "
                             "written back (run the same command with --resume to write them again)")
        sys.exit(EXIT_USAGE)
    if not quiet:
        console.print(f"wrote back to {uri}: {done.traces} trace assessments, {done.claims} claim assessments "
                      f"({done.created} created, {done.updated} updated, {done.deleted} stale ones deleted)",
                      highlight=False, soft_wrap=True)


def _write_back(url: str, api_key: Optional[str], answers: dict, output: str, console: Any, quiet: bool) -> None:
    """``--write-back``: annotate the traces of ``output`` in the Phoenix server at ``url``; exits 2 when that
    fails (``output`` is complete then: it was written first)."""
    from .._console import print_error
    from ..integrations.phoenix import PhoenixClient
    from ..io import read_results

    try:
        with PhoenixClient(url, api_key=api_key) as client:
            done = client.write_back(read_results(output), answers)
    except PhoenixError as exc:
        print_error(console, f"{exc}\nthe audit results in {output} are complete; the annotations were not all "
                             "written back (run the same command with --resume to write them again)")
        sys.exit(EXIT_USAGE)
    if not quiet:
        console.print(f"wrote back to {url}: {done.traces} trace annotations, {done.spans} claim "
                      "annotations", highlight=False, soft_wrap=True)


def _estimate(input_path: str, output: Optional[str], fmt: Optional[str], fields: Any, judge_kw: dict,
              tokenizer_file: Optional[str], reasoning_tokens: Optional[int], console: Any, *, resume: bool,
              retry_errors: bool, gate_accept: Optional[float], baseline: Optional[str], engine: bool) -> None:
    """``audit --estimate``: the LLM judge's calls, tokens and cost on INPUT's valid records, no model called;
    markdown on stdout, and the estimate as JSON in ``output`` when given."""
    import json

    from .._console import print_error
    from ..io import checked_rows, read_rows, writes_over_input
    from ..judges.estimate import Assumptions, estimate, render_estimates, token_counter
    from ..judges.llm import llm_env

    given = [flag for flag, value in (("--resume", resume), ("--retry-errors", retry_errors),
                                      ("--gate-accept", gate_accept is not None), ("--baseline", baseline is not None),
                                      ("--engine, --address and --workers", engine))
             if value]
    if given:
        raise click.UsageError(f"--estimate writes no audit results, so {' and '.join(given)} does not apply")
    if writes_over_input(input_path, output):
        raise click.UsageError(f"-o/--output is the input file {input_path}: the estimate would overwrite it")
    options = auditor_options(judge_kw, llm_env(os.environ))
    try:
        rows = list(read_rows(input_path, fmt))
        check_input(rows, fields, input_path, allow_empty=True, columns=tabular(input_path, fmt))
        records = [rec for _, rec, _ in checked_rows(rows, fields) if not isinstance(rec, InputError)]
        counter = token_counter(options.get("model") or "", tokenizer_file)
        assumptions = Assumptions() if reasoning_tokens is None else Assumptions(reasoning_tokens=reasoning_tokens)
        result = estimate(records, counter=counter, assumptions=assumptions, **options)
    except (ConfigError, InputError, MissingDependencyError) as exc:
        print_error(console, exc)
        sys.exit(EXIT_USAGE)
    skipped = len(rows) - len(records)
    hybrid = options.get("judge") == "hybrid"
    config = AuditConfig().with_options(split_settings(options)[0])
    setting = (("hybrid: local judge, then one one-token verdict per claim, " if hybrid else
                f"{options.get('granularity') or 'per-claim'}, ")
               + f"{options.get('decomposition') or ('rule' if hybrid else 'sentence')} "
               f"decomposition, W={config.window}, O={config.overlap}, global "
               f"{'on' if config.global_verification else 'off'}" + (", prefilter" if config.prefilter else "")
               + (f", prompts {options['prompt_version']}" if options.get("prompt_version") else ""))
    title = f"rt4chart audit --estimate: {options.get('model')}, {result.audited} records" + \
        (f" ({skipped} invalid rows left out)" if skipped else "")
    click.echo(render_estimates([(setting, result)], title=title))
    if output:
        Path(output).write_text(json.dumps({"setting": setting, "invalid_rows": skipped, **result.to_json()},
                                           indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {output}", highlight=False, soft_wrap=True)


def _audit_on_ray(input_path: str, output: Optional[str], resume: bool, retry_errors: bool, fmt: Optional[str],
                  fields: Any, gate_accept: Optional[float], quiet: bool, address: Optional[str],
                  workers: Optional[int], judge_kw: dict, console: Any, *, allow_empty: bool) -> None:
    """``audit --engine ray``: the same rows as the local engine, from workers of a Ray cluster; exits."""
    from .._console import print_error, print_records
    from ..io import json_objects
    from ..jobs.resume import is_parquet_output
    from ..judges.llm import llm_env

    if not output:
        raise click.UsageError("--engine ray needs -o/--output (a JSONL file or a Parquet folder)")
    if input_path == "-":
        raise click.UsageError("--engine ray reads files (or folders), not stdin")
    if retry_errors or gate_accept is not None:
        raise click.UsageError("--retry-errors and --gate-accept work with --engine local only")
    # no telemetry (STYLE.md): Ray's usage statistics stay off unless the environment turns them on
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    options = auditor_options(judge_kw, llm_env(os.environ))
    try:
        from ..ray import audit_files, connect

        connect(address, quiet=quiet)
        summary = audit_files(input_path, output, fmt=fmt, fields=fields, resume=resume, workers=workers, check=True,
                              allow_empty=allow_empty, **options)
    except Exception as exc:  # Ray wraps what a task raised: an unreadable input file is still a usage error
        cause = _wrapped(exc, (BackendError, ConfigError, InputError, MissingDependencyError))
        if cause is None:
            raise
        # only configuration errors stop a run (bad key, model, endpoint)
        print_error(console, _endpoint_error(cause) if isinstance(cause, BackendError) else cause)
        sys.exit(EXIT_USAGE)
    if not quiet:
        if not is_parquet_output(output) and 0 < summary.records <= 20:
            print_records(json_objects(output), console)
        _print_summary(summary, console)
    sys.exit(EXIT_RECORD_ERRORS if summary.failed else EXIT_OK)


def _endpoint_error(exc: BackendError) -> str:
    """What the user reads when the LLM endpoint stops a run: it cannot be reached, or it rejects the request."""
    from ..llm.faults import UnreachableError

    if isinstance(exc, UnreachableError):
        return f"{exc}; check --base-url (or RT4CHART_BASE_URL) and that the server is running"
    return f"the LLM endpoint rejected the request: {exc}"


def _wrapped(exc: BaseException, kinds: tuple) -> Optional[BaseException]:
    """The first exception of one of ``kinds`` in ``exc``'s chain: its causes, contexts and the ``cause`` that Ray's
    task errors carry."""
    stack: list[Optional[BaseException]] = [exc]
    seen: set[int] = set()
    while stack:
        item = stack.pop(0)
        if item is None or id(item) in seen:
            continue
        if isinstance(item, kinds):
            return item
        seen.add(id(item))
        stack += [item.__cause__, item.__context__, getattr(item, "cause", None)]
    return None
