"""The reliefe study keeps its Bayesian test results under a key of the test's code: an edit
of comments or docstrings must keep them (CI has no Stan to recompute them), a change of
what runs must not."""
from reproduce.studies.reliefe import _code_key

BASE = '''"""Module doc."""
def f(x):
    """Why f."""
    return x + 1  # a reason
'''


def _key(tmp_path, text):
    p = tmp_path / "m.py"
    p.write_text(text, encoding="utf-8")
    return _code_key(p)


def test_comments_and_docstrings_keep_the_key(tmp_path):
    edited = BASE.replace("Why f.", "Why f, said better.").replace("# a reason", "# another")
    edited = edited.replace('"""Module doc."""', '"""Other words."""\n\n# a new comment')
    assert _key(tmp_path, edited) == _key(tmp_path, BASE)


def test_a_change_of_code_changes_the_key(tmp_path):
    assert _key(tmp_path, BASE.replace("x + 1", "x + 2")) != _key(tmp_path, BASE)
    assert _key(tmp_path, BASE.replace('"""Why f."""', 'print("f")')) != _key(tmp_path, BASE)
