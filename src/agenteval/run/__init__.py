"""Scoring a run: the plan of each eval set, the runner, and the signals that stop it.

- :mod:`.runner`: cases × metrics × runs → ``EvalCaseResult``s in file order, on one
  asyncio loop, with at most ``window`` cases in flight; a stop ends new work;
- :mod:`.case_split`: ``--jobs N``, a large deterministic eval set scored in shares by
  forked workers, merged into the bytes of one pass;
- :mod:`.run_signals`: what SIGINT/SIGTERM do while a run scores and writes.

May import ``agents/``, ``evaluators/``, ``judge/``, ``results/``, ``inputs/``,
``schema/``; never a face (``api/``, ``cli``) or a reporter.
"""
