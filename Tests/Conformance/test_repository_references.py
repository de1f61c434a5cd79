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


def test_the_generated_blocks_of_the_documents_are_up_to_date():
    """Scripts/generate-references --check: every block a document carries between generated marks is what the
    running code prints now (the scenario-file reference, `serve --help`, …)."""
    checked = subprocess.run([str(ROOT / "Scripts" / "generate-references"), "--check"], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_readme_is_short_and_links_every_document():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    linked = set(re.findall(r"\]\((docs/[a-z-]+\.md)[#)]", readme))
    assert linked == {f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")}


def test_every_link_between_the_documents_reaches_a_file_and_a_heading():
    """A relative Markdown link names a file that exists and, after `#`, one of its headings (GitHub's anchors)."""
    def anchors(path: pathlib.Path) -> set[str]:
        headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", path.read_text(), flags=re.S), re.M)
        return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}
    broken = []
    for document in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        for target, anchor in re.findall(r"\]\(([A-Za-z0-9_./-]*\.md)?(?:#([\w-]+))?\)", document.read_text()):
            path = (document.parent / target).resolve() if target else document
            if not path.exists() or (anchor and anchor not in anchors(path)):
                broken.append(f"{document.relative_to(ROOT)}: {target}#{anchor}")
    assert broken == []


def test_the_layout_in_docs_development_names_every_folder():
    """docs/development.md's layout names every folder of Sources/ (at any depth) and of the top level."""
    document = (ROOT / "docs" / "development.md").read_text()
    block = document[document.index("## Layout"):]
    block = block[block.index("```") + 3:]
    block = block[:block.index("```")]
    named, parents = set(), {}
    for line in block.splitlines():
        match = re.match(r"( *)(\S+/)", line)
        if not match:
            continue
        depth = len(match.group(1)) // 2
        path = (parents.get(depth - 1, "") if depth else "") + match.group(2)
        parents[depth] = path
        named.add(path)
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    folders = {name.split("/")[0] + "/" for name in tracked if "/" in name and not name.startswith("Sources/")}
    for name in tracked:
        parts = name.split("/")[:-1]
        if parts[:1] == ["Sources"]:
            folders |= {"/".join(parts[:depth]) + "/" for depth in range(2, len(parts) + 1)}
    assert named == folders


def test_every_file_and_type_docs_development_names_exists():
    """The architecture and the "to add" recipes of docs/development.md name files (by path or by name) and types that
    exist, so that a move or a rename fails here rather than misleading the next person."""
    document = (ROOT / "docs" / "development.md").read_text()
    text = document[document.index("## Architecture"):document.index("## The test command")]
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    names = {pathlib.PurePath(name).name for name in tracked}
    paths = set(re.findall(r"`((?:Sources|Tests|Scripts)/[^`…]+)`", text))
    files = set(re.findall(r"\b([A-Z][A-Za-z+]+\.swift|[a-z_]+\.py)\b", text))
    assert paths and files
    assert sorted(path for path in paths if not (ROOT / path).exists()) == []
    assert sorted(name for name in files if name not in names) == []
    # A name is a Swift declaration, a module (a folder of Sources/) or a schema of the admin API's document.
    sources = "\n".join((ROOT / name).read_text() for name in tracked if name.endswith(".swift"))
    modules = {folder.name for folder in (ROOT / "Sources").iterdir()}
    schemas = set(re.findall(r"^    ([A-Z][A-Za-z]+):$", (ROOT / "Sources/MockAppleIDServer/Admin/openapi.yaml").read_text(), re.MULTILINE))
    named = set(re.findall(r"`([A-Z][A-Za-z]+)(?:[(`]|\.(?!swift))", text)) - {"POST", "GET"}
    declared = re.compile(r"\b(?:struct|class|enum|protocol|actor|typealias|case|func|var|let) (%s)\b" % "|".join(named))
    assert sorted(named - set(declared.findall(sources)) - modules - schemas) == []


def test_the_fault_tables_name_every_fault_the_server_takes():
    """docs/scenarios.md's table of faults and docs/apple-reference.md's list of identity-token faults name exactly
    the faults of the admin API's document (which a Swift test holds equal to the code's list)."""
    import yaml

    document = yaml.safe_load((ROOT / "Sources" / "MockAppleIDServer" / "Admin" / "openapi.yaml").read_text())
    faults = document["components"]["schemas"]["FaultSpec"]["properties"]["fault"]["enum"]
    rows = [line.split("|")[1] for line in (ROOT / "docs" / "scenarios.md").read_text().splitlines()
            if re.match(r"\| `(token|keys|id-token)-", line)]
    documented = [name for row in rows for name in re.findall(r"`((?:token|keys|id-token)-[a-z0-9-]+)`", row)]
    assert sorted(documented) == sorted(faults)
    reference = (ROOT / "docs" / "apple-reference.md").read_text()
    # The list names the first fault whole (`id-token-expired`) and the others by their ends (`-not-yet-valid`).
    listed = {name if name.startswith("id-token-") else "id-token" + name
              for name in re.findall(r"`((?:id-token)?-[a-z0-9-]+)`", reference[reference.index("### 5.3"):reference.index("### 5.4")])}
    assert listed == {name for name in faults if name.startswith("id-token-")}


def test_the_notification_tables_name_every_notification_type():
    """docs/apple-reference.md's table of notification types and docs/account-lifecycle.md's table of what sends them
    name exactly the types of the admin API's document (which a Swift test holds equal to the code's list)."""
    import yaml

    document = yaml.safe_load((ROOT / "Sources" / "MockAppleIDServer" / "Admin" / "openapi.yaml").read_text())
    types = set(document["components"]["schemas"]["NotificationType"]["enum"])
    # Each table and the column naming the types.
    for name, heading, column in (("apple-reference.md", "| type [NOTIF] |", 1), ("account-lifecycle.md", "| change | event sent to |", 2)):
        text = (ROOT / "docs" / name).read_text()
        table = text[text.index(heading):]
        table = table[:table.index("\n\n")]
        named = {word for row in table.splitlines()[2:] for word in re.findall(r"`([a-z]+-[a-z]+)`", row.split("|")[column])}
        # account-deleted is the other spelling of account-delete (notifications.accountDeletedType).
        assert named - {"account-deleted"} == types, name


def test_each_module_imports_only_the_modules_beneath_it():
    """The core knows no server, storage or audit; the server, storage and the audit know the core alone (the audit's
    admin route is added by the composition roots, `serve` and the testing library); Package.swift says the same."""
    beneath = {
        "SystemLibcrypto": set(),
        "MockAppleID": {"SystemLibcrypto"},
        "MockAppleIDServer": {"MockAppleID"},
        "MockAppleIDStorage": {"MockAppleID"},
        "MockAppleIDAudit": {"MockAppleID"},
        "MockAppleIDTesting": {"MockAppleID", "MockAppleIDServer", "MockAppleIDAudit"},
        "mock-appleid": {"MockAppleID", "MockAppleIDServer", "MockAppleIDStorage", "MockAppleIDAudit", "MockAppleIDTesting"},
    }
    sources = ROOT / "Sources"
    assert {folder.name for folder in sources.iterdir() if folder.is_dir()} == set(beneath)
    imported = {folder.name: {name for path in folder.rglob("*.swift")
                              for name in re.findall(r"^(?:@testable )?import (\S+)", path.read_text(), re.MULTILINE)
                              if name in beneath}
                for folder in sources.iterdir() if folder.is_dir()}
    assert imported == beneath
    manifest = (ROOT / "Package.swift").read_text()
    for name, allowed in beneath.items():
        target = re.search(r'(?:\.target|\.executableTarget)\(\s*name: "%s"\s*,?(?:\s*dependencies: \[(.*?)\])?' % re.escape(name), manifest, re.DOTALL)
        assert target, name
        declared = set(re.findall(r'^\s*"([^"]+)",?\s*(?://.*)?$', target.group(1) or "", re.MULTILINE))
        assert declared == allowed, name
