"""The repository explains itself: every document a tracked file names is in the repository, and every
section of docs/apple-reference.md a comment cites exists."""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "apple-reference.md"


def tracked_text_files() -> list[pathlib.Path]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    files = []
    for name in names:
        path = ROOT / name
        if path.is_file() and path.suffix not in (".pem", ".p8"):
            try:
                path.read_text()
            except UnicodeDecodeError:
                continue
            files.append(path)
    return files


def test_every_document_a_file_names_is_in_the_repository():
    files = tracked_text_files()
    tracked_names = {path.name for path in files}
    missing = []
    for path in files:
        text = re.sub(r"https?://\S+", "", path.read_text())
        for named in set(re.findall(r"[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b", text)):
            candidates = [(ROOT / named).resolve(), (path.parent / named).resolve()]
            inside = any(candidate.is_relative_to(ROOT) and candidate.exists() for candidate in candidates)
            if not (inside or ("/" not in named and named in tracked_names)):
                missing.append(f"{path.relative_to(ROOT)}: {named}")
    assert missing == []
    assert len(files) > 100


def test_every_cited_section_of_the_apple_reference_exists():
    """A "§N" (not an RFC's or another standard's) names a section of the reference, in a file that names it."""
    headings = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)[. ]", REFERENCE.read_text(), re.M))
    cited, unanchored = {}, []
    for path in tracked_text_files():
        text = path.read_text()
        for match in re.finditer(r"(RFC ?\d+ |X\.\d+ )?§(\d+(?:\.\d+)?)", text):
            if match.group(1) or path == REFERENCE or path.name == "test_repository_references.py":
                continue
            if "apple-reference.md" not in text:
                unanchored.append(f"{path.relative_to(ROOT)}: §{match.group(2)}")
            cited.setdefault(match.group(2), str(path.relative_to(ROOT)))
    assert unanchored == []
    assert {"1", "1.1", "2.2", "5.2", "10.1", "11"} <= set(cited)
    assert {section: where for section, where in cited.items() if section not in headings} == {}
