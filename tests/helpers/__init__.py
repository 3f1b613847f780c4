"""What several test modules share: test modules import from here (or from
a folder's own helper modules such as `tests/e2e/cases.py`), never from one
another, so that each test module can change or go without breaking others."""
