"""Test-session setup: never touch the network or the user's caches.

Set here (not in CI only) so that the README's plain `python -m pytest` behaves the same everywhere;
subprocesses started by tests inherit these variables.
"""

import os
import shutil
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
_CACHE_DIR = tempfile.mkdtemp(prefix="stickgen-test-cache-")
os.environ["STICKGEN_CACHE_DIR"] = _CACHE_DIR


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)
