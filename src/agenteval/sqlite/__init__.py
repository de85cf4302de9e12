"""SQLite files shared between processes (the judge cache, the run store's SQLite stores).

A leaf package (it imports nothing of agenteval), so judge/ and store/ share one rule for
opening such a file while another process is creating it (:mod:`agenteval.sqlite.busy`).
"""
