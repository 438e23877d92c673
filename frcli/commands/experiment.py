"""``frcli experiment CONFIG.yaml``: run (or resume) a study and store its results."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("experiment")
    def experiment_command(
        config: Path = typer.Argument(..., metavar="CONFIG", help="Experiment config (YAML), e.g. "
                                      "configs/quickstart.yaml."),
        jobs: int = typer.Option(1, "--jobs", "-j", min=1,
                                 help="Worker processes (engines use one thread each)."),
        dask_scheduler: Optional[str] = typer.Option(
            None, "--dask-scheduler",
            help="Run on a dask.distributed cluster: scheduler ADDRESS, or 'local' for a "
                 "LocalCluster with --jobs workers."),
        threads: int = typer.Option(1, "--threads", min=1,
                                    help="Engine threads per worker."),
        force: bool = typer.Option(False, "--force",
                                   help="Recompute runs that are already stored."),
        output: Optional[Path] = typer.Option(
            None, "--output", "-o", help="Results root (default: the config's 'output'); "
                                         "results go to OUTPUT/<name>/."),
        dry_run: bool = typer.Option(False, "--dry-run",
                                     help="Validate the config and show the plan only."),
        progress: Optional[bool] = typer.Option(
            None, "--progress/--no-progress",
            help="Progress bar (default: on a terminal; otherwise a log line per finished "
                 "data set, and at least one a minute)."),
    ) -> None:
        """Run an experiment: rank every data set split, evaluate with weighted kNN, store.

        Rerunning skips finished runs, so an interrupted experiment resumes where it stopped.
        """
        from frcli.commands import console as make_console
        from frcli.errors import UserError
        from frcli.experiment.config import load_config
        from frcli.experiment.executor import run_experiment
        from frcli.experiment.plan import build_plan

        cfg = load_config(config)
        console = make_console()
        if dry_run:
            from frcli.experiment.executor import preflight

            plan = build_plan(cfg)          # counted, not built: instant for large plans
            preflight(cfg)
            runs = plan.runs
            console.print(f"{cfg.name}: {len(cfg.datasets)} data set(s), "
                          f"{cfg.protocol.n_splits} split(s), {len(cfg.rankers)} ranker "
                          f"entr{'y' if len(cfg.rankers) == 1 else 'ies'}: {len(plan)} tasks, "
                          f"{runs} runs → {cfg.output_dir(output)}")
            return
        summary = run_experiment(cfg, jobs=jobs, dask=dask_scheduler, force=force,
                                 output=output, progress=progress, threads=threads)
        if summary.runs_written or summary.skipped:
            from frcli.stats.summary import summary_table

            console.print(summary_table(summary.directory))
        console.print(f"{summary.tasks} tasks: {summary.computed} computed, {summary.skipped} "
                      f"already stored, {len(summary.failures)} failed; {summary.runs_written} "
                      f"runs written in {summary.seconds:.1f} s → {summary.directory}")
        if summary.failures:
            # the finished runs are stored; a rerun retries only the failed tasks
            for label, err in summary.failures[:5]:
                typer.echo(f"failed: {label}: {err}", err=True)
            more = len(summary.failures) - 5
            if more > 0:
                typer.echo(f"failed: ... and {more} more", err=True)
            msg = (f"{len(summary.failures)} of {summary.tasks} task(s) failed; the "
                   f"{summary.computed} computed are stored in {summary.directory} and a rerun "
                   f"retries only the failed ones")
            if summary.internal_failures:   # a bug, not the input: exit 1
                if os.environ.get("FRCLI_DEBUG"):
                    for tb in summary.tracebacks:
                        typer.echo(tb, err=True)
                else:
                    typer.echo("(rerun with --debug to see the tracebacks)", err=True)
                typer.echo(f"error: {msg} ({summary.internal_failures} internal error(s))",
                           err=True)
                raise typer.Exit(1)
            raise UserError(msg)
