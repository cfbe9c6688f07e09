"""MkDocs hook (mkdocs.yml `hooks:`): the site's home page is README.md, its links rewritten from the repository
root to docs/, so the README stays the one place the newcomer's page is written."""

from pathlib import Path

from mkdocs.structure.files import File

README = Path(__file__).resolve().parents[1] / "README.md"


def on_files(files, config):
    """Add README.md as the site's index.md, with `docs/...` links made relative to docs/."""
    text = README.read_text(encoding="utf-8").replace("](docs/", "](")
    files.append(File.generated(config, "index.md", content=text))
    return files
