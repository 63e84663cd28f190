"""The README's examples run as written.

Every ```python block of README.md runs in a fresh interpreter (its own
subprocess, in an empty temporary directory), so a snippet that stops working
fails here. A block is skipped only when it imports a library that is not
installed (pandas, say), and says which. The ```bash blocks are not run; the
test command's block is checked against what ``.ci/run`` extracts.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _blocks(lang: str) -> list[tuple[str, str]]:
    """(section heading above the block, code) of each ```lang block, in order."""
    out, heading, fence, body = [], "", None, []
    for line in README.read_text(encoding="utf-8").splitlines():
        if fence is None:
            if line.startswith("```"):
                fence, body = line[3:].strip(), []
            elif line.startswith("#"):
                heading = line.lstrip("#").strip()
        elif line.startswith("```"):
            if fence == lang:
                out.append((heading, "\n".join(body) + "\n"))
            fence = None
        else:
            body.append(line)
    return out


def _slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")[:40] or "top"


def _missing_modules(code: str) -> list[str]:
    """Top-level modules the block imports that cannot be found here."""
    missing = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            root = name.split(".")[0]
            if importlib.util.find_spec(root) is None and root not in missing:
                missing.append(root)
    return missing


PYTHON_BLOCKS = _blocks("python")


def test_readme_has_python_examples():
    assert len(PYTHON_BLOCKS) >= 4, "README.md lost its Python examples"


@pytest.mark.parametrize(
    "code", [code for _, code in PYTHON_BLOCKS],
    ids=[f"{i}-{_slug(h)}" for i, (h, _) in enumerate(PYTHON_BLOCKS)])
def test_readme_python_block_runs(code, tmp_path):
    missing = _missing_modules(code)
    if missing:
        pytest.skip(f"the block imports {', '.join(missing)}, which is not installed")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=False,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (
        f"README block failed (exit {proc.returncode}):\n{code}\n--- stderr ---\n"
        f"{proc.stderr[-4000:]}")


def _ci_test_command() -> str:
    """The command .ci/run takes from README.md (the same rule as its awk line)."""
    lines = README.read_text(encoding="utf-8").splitlines()
    found, inside, cmd = False, False, []
    for line in lines:
        if not found:
            found = "<!-- test-command -->" in line
            continue
        if not inside:
            inside = line.startswith("```bash")
            continue
        if line.startswith("```"):
            break
        cmd.append(line)
    return "\n".join(cmd)


def test_readme_test_command_is_what_ci_runs():
    assert _ci_test_command() == 'pip install -e ".[test]" && python -m pytest -n 2'
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    awk = re.search(r"awk '([^']+)' README\.md", ci_run)
    assert awk, ".ci/run no longer extracts the test command with awk"
    if shutil.which("awk"):
        out = subprocess.run(["awk", awk.group(1), str(README)], check=True,
                             capture_output=True, text=True).stdout
        assert out.strip() == _ci_test_command()


def test_readme_demo_command():
    text = README.read_text(encoding="utf-8")
    block = "<!-- demo-command -->\n```bash\npip install . && python -m metrix demo\n```\n"
    assert block in text


def test_readme_links_resolve():
    """Relative links of the README point at files or folders of the repository."""
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"
