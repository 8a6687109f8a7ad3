"""The maintainer's library: what the scripts of ``scripts/`` do, as functions.

- ``release``: a track's key and public file make a release its spec describes.
- ``tables``: a key or public file read as a table in its format, and written back.
- ``rotation``: a key's option letters rotated, its answers kept, spread evenly.
- ``rotation_files``: a rotation and a remapping as the maintainer runs them: inputs, files.
- ``letter_map``: a rotation's letter map read back; submissions remapped with it.
- ``board_checks``: the board's rows; the duplicates and supersessions a new row may not be.
- ``publish``: a scored submission as a row: its record, the board's verdict, its summary.
- ``withdraw``: the withdrawal that retracts a row from its board.
- ``eval_results``: the benchmark and its verified rows in the Hub's Eval Results.
- ``carry``: a board's re-scored rows carried onto a new key.
- ``reproduce``: a row's numbers against a fresh score of its submission.
- ``paper_rows``: a paper's reported rows as records.
- ``release_layout``: a release file as its authors publish it, read into rows and written back.
- ``release_inference``: what a spec says of such a release, inferred from its rows.
- ``short_answer_release``: the same of a short-answer release (texts and letters as answers).
- ``spec_toml``: the TOML a scaffolded spec is written in.
- ``scaffold``: a new benchmark folder from a release.

The scripts own the flags, the messages and the writing; these modules raise the error tree's
``ReshuffleError``, ``BoardError``, ``ReleaseError`` and ``ScaffoldError``. The Space never
imports this package: only the maintainer's own machine runs it.
"""
