"""The Leaderboard tab, one module per stage of showing a board, read in this order.

The pure stages: ``layout`` (a board's column groups, headers and number formats, from the
spec), ``ranks`` (rank ranges from the ranking metric's intervals), ``rows`` (records as the
board's frame, best first), ``filters`` (what a visitor asked to see, checked before any
work), ``table`` (a column group's rows, sorted, as an HTML table), ``status`` (the line above
it), ``export`` (the rows as the CSV and JSON downloads and ``/leaderboard`` give them),
``address`` (the view in the page's address, read and written) and ``card`` (a row's card).
``export_files`` writes a view's downloads, once per content.

Then the handlers, functions over a ``BoardTab`` that a test calls without mounting the page:
``handlers`` (the board as its ``Controls`` say, a row's card, ``/leaderboard``),
``chart_handlers`` (the charts and the track switch), ``hub_results`` (the box of the Hub's own,
unverified results), ``landing`` (a fresh page as its address says), ``entry`` (``/entry``: a
row's card as JSON); ``page`` lays the tab out and wires its events to them. Only the handlers
hold the ledger's objects; the stages read the records they show from ``records``.
"""
