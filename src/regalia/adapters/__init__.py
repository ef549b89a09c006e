"""Faces of the games for the standard research interfaces (design.md, "adapters").

Each adapter is built on the engines' views only and needs its library, installed with the
``research`` extra (``pip install -e '.[research]'``): ``regalia.adapters.openspiel``.
"""
