"""Benchmarks of the Space against the framework floor (``make bench`` writes BENCHMARKS.md).

The HTTP client (``gradio_http``) and the load driver (``load``) are shared with the load, fuzz
and fault tests, so the tests and the benchmarks exercise the server the same way.
"""
