"""Benchmarks of the Space against the framework floor (``make bench`` writes BENCHMARKS.md).

The parts, each a module: ``p1_score`` (scoring in process against ``json.loads`` of the same
bytes), ``p2_http`` (/score over loopback against the honest floor, ``floor_app``),
``p3_board`` (a board's refresh against the loopback Hub), ``p4_boot`` (boot and idle memory
against ``hello_app``), ``p5_uploads`` (what hostile bursts leave on a real server) and
``p6_attacks`` (a visitor's page and score under each attack of the security reviews).
``bench_app`` is the Space as ``app.main`` builds it, plus the no-op endpoint P2 measures
against; ``report`` prints the table and writes the generated part of BENCHMARKS.md;
``__main__`` runs them (``python -m perf``, ``--only P1 P2``).

The HTTP client (``tests.support.gradio_http``) and the load driver (``tests.support.load``)
are shared with the load, fuzz and fault tests, so the tests and the benchmarks exercise the
server the same way.
"""
