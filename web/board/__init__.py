"""The Leaderboard tab, one module per stage of showing a board, read in this order.

``layout`` (a board's column groups, headers and formats, from the spec), ``ranks`` (rank
ranges from the ranking metric's intervals), ``rows`` (records as the board's frame; its
filters and exports), ``status`` (the status line and what an empty view says), ``table``
(the board as an HTML table, sorted), ``address`` (the view in the page's address, read and
written), ``card`` (a row's card) are pure. ``export_files`` writes a view's downloads.
``handlers`` are the tab's handlers, functions over a ``BoardTab`` that a test calls without
mounting the page; ``chart_handlers`` the charts' and the track switch's, ``hub_results`` the
box of the Hub's own results, ``landing`` a fresh page's, ``entry`` the ``/entry`` endpoint;
``page`` lays the tab out and wires its events to them.
"""
