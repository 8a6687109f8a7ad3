"""The pages: the Leaderboard, Score and About tabs, their handlers and their pure views.

``page`` assembles the page (header, tabs, theme, style; ``page.css``). ``board_layout`` (a
board's column groups, headers, formats), ``board_ranks`` (rank ranges), ``board_view``
(the board as a frame: filters, status line, exports), ``board_table`` (the board and a row's
card as HTML), ``charts`` (Vega-Lite specs) and ``score_view`` (a score as the Score tab shows
it) are pure. ``board_handlers`` and ``score_handlers`` are the tabs' handlers, functions over
a small context (``BoardTab``, ``ScoreTab``) that a test calls without mounting the page;
``board_page`` and ``score_page`` lay the tabs out and wire their events to them (``wiring``:
a handler bound to its context as Gradio calls it). ``exports`` writes a board view's
downloads; ``served`` is one track as the page serves it.
"""
