"""The maintainer's command lines, thin over ``maintainer/``, ``evaluator/`` and ``ledger/``:
each parses its flags, reads its files and prints (``--help`` each; the README shows them).

For a benchmark's authors: ``new_benchmark`` (a benchmark folder from a release as published),
``validate_benchmark`` (a spec and a track's release files, before publishing them). For a
researcher: ``validate_submission`` (a file against the public file, without the key). For the
maintainer: ``publish_submission`` (a scored submission as a record), ``withdraw_row``,
``reproduce_row`` (re-score a row and compare every number), ``seed_paper_baselines`` (the
paper's rows), ``reshuffle_options`` (rotate the key's letters; remap old submissions),
``rescore_board`` (carry a board onto a rotated key) and ``hub_eval_results`` (the Hub's Eval
Results). ``_cli`` is what they share: the benchmark, the parser, the target store, usage
errors.
"""
