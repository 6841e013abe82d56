"""Test support for robotouille: a slow pure-Python reference interpreter (``reference``).

Nothing here imports the compiled extension, so the reference can check it independently.
"""
