"""What results mean: statuses, summaries and exit codes, merged shards, resumed runs.

- :mod:`.aggregation`: turn → metric → case → run → eval set summary, pass@k, and the
  one rule that turns case statuses into an eval set's status and the process exit code;
- :mod:`.merging` and :mod:`.sharding`: ``--shard I/N`` and merging shard or resumed
  results into one eval set result;
- :mod:`.fingerprints`: content hashes of what an eval set was scored on;
- :mod:`.resuming`: which earlier cases ``--resume`` keeps;
- :mod:`.flakiness`: a case's verdict over repeated runs;
- :mod:`.share_workers`: ``--jobs N``'s forked workers, each computing a share of a job
  (the checks of an eval set, the scoring of its cases) and shipping it back.

May import ``inputs/`` (result readers' case sources), ``schema/``, ``errors``,
``exit_codes``; never a runner, a reporter or a face.
"""
