"""Side-by-side reports of two revisions: workers that import an older install of robotouille.

A report runs each side's worker in a fresh interpreter (:func:`run_worker`). Importing this
module, before anything imports robotouille, puts the install that ``ROBOTOUILLE_OLD_SITE`` names,
where it is set, ahead of the current checkout; an editable install of the checkout, which
redirects imports ahead of ``sys.path``, is set aside.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

VARIABLE = "ROBOTOUILLE_OLD_SITE"

if os.environ.get(VARIABLE):
    sys.meta_path = [f for f in sys.meta_path if "editable" not in type(f).__module__]
    sys.path.insert(0, os.environ[VARIABLE])


def run_worker(old_site: str | None, arguments: list[str]) -> list[dict[str, Any]]:
    """Runs ``python ARGUMENTS`` on the old install (or the current one, for None).

    Returns:
        The JSON objects it printed, one per line.
    """
    env = dict(os.environ)
    env.pop(VARIABLE, None)
    if old_site:
        env[VARIABLE] = old_site
    command = [sys.executable, *arguments]
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]
