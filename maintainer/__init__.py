"""The maintainer's library: what the scripts of ``scripts/`` do, as functions.

``release`` checks a track's key and public file make a release its spec describes. The Space
never imports this package: only the maintainer's own machine runs it.
"""
