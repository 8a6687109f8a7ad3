"""The pages: the Leaderboard, Score and About tabs, their handlers and their pure views.

``page`` assembles the page (header, tabs, theme, style; ``page.css``) from what the ledger
loaded for each track (``served``: one track as the page serves it). ``board`` is the
Leaderboard tab, a package with a module per stage of showing a board. ``score_view`` (a score
as the Score tab shows it), ``charts`` and ``scatter_charts`` (Vega-Lite specs, over
``chart_parts``) and ``text`` (what a page says of a value it did not write: Markdown escapes,
values quoted short, lists of choices) are pure. ``score_handlers`` are the Score tab's
handlers, functions over a small context (``ScoreTab``) that a test calls without mounting
the page, as the board's are; ``score_page`` lays the tab out and wires its events to them
(``wiring``: a handler bound to its context as Gradio calls it; ``score_refusals``: the
refusals it remembers). The page's JavaScript is in files of its own, ``js/`` beside
``page.css``, each read at import by the module that wires it (``page_js``). A view imports
neither ``ledger`` nor ``guard``: the records it shows are ``records``' (tests/test_house.py
holds the page's edges to it).
"""
