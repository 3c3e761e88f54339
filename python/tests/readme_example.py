"""Runs README.md's Python example (the ```python block of its "## Python" section) as a user
would: a fresh interpreter in an empty directory. ctest's Python.ReadmeExample."""
import pathlib
import re
import subprocess
import sys
import tempfile

readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
found = re.search(r"^## Python\n.*?^```python\n(.*?)^```", readme, re.S | re.M)
if not found:
    sys.exit("README.md has no ```python block under '## Python'")
with tempfile.TemporaryDirectory() as cwd:
    sys.exit(subprocess.run([sys.executable, "-c", found.group(1)], cwd=cwd).returncode)
