"""The maintainer's library: what the scripts of ``scripts/`` do, as functions.

- ``release``: a track's key and public file make a release its spec describes.
- ``tables``: a key or public file read as a table in its format, and written back.
- ``rotation``: a key's option letters rotated, its answers kept, spread evenly.
- ``letter_map``: a rotation's letter map read back; submissions remapped with it.

The Space never imports this package: only the maintainer's own machine runs it.
"""
