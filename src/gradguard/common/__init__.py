"""Small helpers shared by the wings: ``text`` is standard library only, ``storage`` needs torch.

The checker, runtime and bench wings may import this package; it imports none of them.
"""
