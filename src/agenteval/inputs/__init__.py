"""Reading and bounding input files: eval sets, metric files, traces and result files.

Every reader here turns bytes on disk into ``schema/`` objects, one case at a time where a
file can be large, and locates every problem (``file: json.path: problem (hint)``):

- bounds on any input (:mod:`.input_limits`: regular files only, sizes, nesting,
  compressed files named) and files of other tools recognised and named
  (:mod:`.foreign_files`, :mod:`.file_kind`);
- eval sets and metric files (:mod:`.loading`, with the rules of each file,
  :mod:`.evalset_file` and :mod:`.metrics_file`; :mod:`.evalset_scan` and
  :mod:`.lazy_cases` read a large eval set a case at a time over :mod:`.json_scan`);
- ``--traces`` JSON lines (:mod:`.trace_records`) and OTLP trace files, JSON or
  protobuf (:mod:`.otlp_file`, read by ``importers/`` too);
- result files, ``--json`` run documents and directories of them
  (:mod:`.result_inputs` over :mod:`.result_scan` and :mod:`.result_validation`),
  each a :class:`.case_sources.CaseSource` that every result reader folds over;
- what a parsed document holds that its format does not: keys it does not define
  (:mod:`.unknown_keys`, with the likely key meant) and numbers JSON cannot hold
  (:mod:`.finite_numbers`);
- JSON paths in messages (:mod:`.locations`), warnings counted past three
  (:mod:`.problem_lists`), ``${VAR}`` expansion of file values (:mod:`.env_expansion`)
  and the secrets a base URL took from the environment (:mod:`.url_secrets`);
- what every reader and writer prints, beside untrusted text escaped (:mod:`.safe_text`):
  scores and counts, a score beside its threshold never reading as it, in the reports
  and in the evaluators' reasons (:mod:`.score_text`).

May import ``schema/``, ``errors``, ``exit_codes``, ``settings``; never ``checks/``,
``evaluators/``, ``judge/``, a runner or a reporter (they all read through here).
"""
