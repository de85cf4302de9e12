"""``agenteval calibrate``: judge metrics against human labels (κ, confusion, thresholds).

:mod:`.labels` reads the labels, :mod:`.items` the scored items a label can name,
:mod:`.agreement` pairs them and computes the statistics (:mod:`.stats`), :mod:`.render`
draws them (console, standalone page, the report page's blocks).  The items come from a
saved result, from the labelled cases scored on the spot with judge replies from the cache
(:mod:`.spot`, through ``api``), or from the runs of an HTML report (:mod:`.report_page`).
:mod:`.command` is what the command does once its flags are read.
"""
