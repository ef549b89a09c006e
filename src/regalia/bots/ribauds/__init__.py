"""Le Roy des Ribauds bots: ``belief`` (``determinize``, a full position consistent with what
a seat knows) and ``play`` ("heuristic", "tactical", "ismcts", and the sure-win checks they
share). Importing this package imports neither: ``regalia.bots.make_bot`` loads them.
"""
