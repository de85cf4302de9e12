"""Step records: what the comparers and the judge pipeline did, kept only while someone listens.

A leaf package (it imports nothing of agenteval), so the criteria, the evaluators and the
judge pipeline can all note their intermediate values here; ``agenteval explain``
listens (:func:`recording`) and renders them.  Outside a recording every hook is one
context-variable read.
"""
