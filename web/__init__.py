"""The pages: the Leaderboard, Score and About tabs and their pure views.

``board_view`` (the board as a frame: ranks, filters, exports), ``board_table`` (the board and
a row's card as HTML), ``charts`` (Vega-Lite specs) and ``score_view`` (a score as the Score
tab shows it) are pure; ``board_page`` and ``score_page`` lay the tabs out and wire their
events; ``served`` is one track as the page serves it. ``page.css`` is the page's style.
"""
