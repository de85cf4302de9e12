"""The run store: every run's results in SQLite or PostgreSQL, for history, trends and baselines.

What it holds (one module, one idea):

* ``urls`` — store URLs from ``--store`` / ``$AGENTEVAL_STORE`` / the project file,
  shown without the password;
* ``tables`` — the SQLAlchemy Core schema; ``migrations`` — its versions, applied on
  open; ``connection`` — opening a store, errors as one located line;
* ``context`` — git commit / branch / dirty flag and the CI job URL of a run;
  ``fingerprints`` — the content hashes a stored eval set is recorded with;
* ``documents`` — result documents kept byte for byte, zstd-compressed in chunks;
* ``writer`` — recording a run as it streams (a :class:`~agenteval.api.ResultSink`
  that batches rows), finished in one last transaction; ``adding`` — ``store add``;
  ``export`` — ``store export``;
* ``queries`` — history, metric series and per-case outcomes; ``changepoints`` — where
  a metric's series shifts; ``baselines`` — ``@latest``, ``@RUN_ID``, ``@branch:NAME``;
* ``console`` — the terminal views of ``history`` and ``trend``; ``trend_page`` — the
  HTML trend page (``trend_assets/``).

What it may import: result objects from :mod:`agenteval.schema`, the pure helpers
(:mod:`agenteval.results.aggregation`, :mod:`agenteval.results.flakiness`, :mod:`agenteval.schema.gojson`,
:mod:`agenteval.results.merging`, :mod:`agenteval.inputs.loading` for reading files) and the helpers
for writing files and printing text (``report.atomic_write``, ``report.metric_averages``,
``inputs.safe_text``).  Nothing that scores imports this
package: a run records itself through the CLI, and scoring never depends on the store
being reachable.  SQLAlchemy is imported only when a store is used.
"""
