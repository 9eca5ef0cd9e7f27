"""A built wheel carries the templates, and an installed attnwalk renders from any folder."""

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{proc.stderr[-2000:]}")
    return next(out.glob("attnwalk-*.whl"))


def test_wheel_ships_every_template(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for template in sorted((ROOT / "templates").rglob("*.j2")):
        rel = template.relative_to(ROOT / "templates").as_posix()
        assert f"attnwalk/templates/{rel}" in names, rel


def test_installed_wheel_renders_in_both_languages_from_another_folder(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    # Dependencies come from the test environment's site-packages (appended after the venv's own,
    # so the wheel's attnwalk wins; .pth files there, like an editable install's, are not processed).
    own = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    Path(own, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    exe = env_dir / "bin" / "attnwalk"
    for lang, title in [("vi", "# Attention trong YOLO"), ("en", "# Attention in YOLO")]:
        proc = subprocess.run([str(exe), "render", "--h", "3", "--w", "3", "--heads", "2", "--seed", "42",
                               "--lang", lang], cwd=elsewhere, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert title in proc.stdout
    # The installed package is the wheel's, not this checkout.
    where = subprocess.run([str(py), "-c", "import attnwalk; print(attnwalk.__file__)"], cwd=elsewhere,
                           capture_output=True, text=True, check=True).stdout
    assert str(env_dir) in where


def test_wheel_ships_katex_and_its_fonts(wheel):
    """HTML pages inline the packaged KaTeX; without it `--format html` could not work offline."""
    names = set(zipfile.ZipFile(wheel).namelist())
    for asset in sorted((ROOT / "attnwalk" / "static").rglob("*")):
        if asset.is_file():
            assert f"attnwalk/{asset.relative_to(ROOT / 'attnwalk').as_posix()}" in names, asset
    assert "attnwalk/static/katex/fonts/KaTeX_Main-Regular.woff2" in names
