"""Tests of guard/: the score limit, clients, request bodies, refusals, uploads, the queue."""
