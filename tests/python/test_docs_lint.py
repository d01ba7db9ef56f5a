"""A doc linter: what README.md and docs/**/*.md name must exist.

- every `ncmesh COMMAND` they show (in a code span or a code block) is a command of the CLI,
  every `--option` on such a line is an option of that command, and every
  `ncmesh reproduce NAME` names a registered experiment;
- every repository path in a code span (a word starting with one of the repository's
  top-level folders, e.g. `python/ncmesh/cli.py`, or a top-level file) exists: at the
  repository root, or inside the core crate (`tests/more.rs` is
  crates/ncmesh-core/tests/more.rs, as the Rust docs write it); a glob must match a file;
- every relative Markdown link resolves to a file or folder;
- no doc, and no tracked file of code, points a user to `../shared/` (or /work/shared/):
  files outside the repository that a fresh clone does not have.

Precise rather than clever: a word with a placeholder (`DIR/x`, `<module>.py`, `NAME.md`,
`{a,b}`) is not a path, text outside code spans and links is not read, and what is allowed
although it does not exist is listed below with the reason.
"""

from __future__ import annotations

import glob
import re
import shlex
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CRATE = REPO / "crates" / "ncmesh-core"

# Paths a doc may name that are not in the repository: outputs the documented commands
# write. {path: why}
GENERATED = {
    "validation/ns3/reference-quick.csv": "written by `validation/ns3/run_ns3.sh --quick`",
}

# Lines that still point to ../shared/ in files this linter's author may not edit:
# {(file, text)}. Remove an entry when its file is fixed.
SHARED_ALLOWED: set[tuple[str, str]] = set()

CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
PLACEHOLDER = re.compile(r"[<>{}$*?\[\]]|(?:^|/)[A-Z][A-Z_]+(?:/|\.|$)|\.\.\.")


def _docs() -> list[Path]:
    return [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))


def _rel(path: Path) -> str:
    return str(path.relative_to(REPO))


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return out.stdout.splitlines()


def _top_level() -> tuple[tuple[str, ...], set[str]]:
    folders, files = set(), set()
    for f in _tracked():
        head, _, rest = f.partition("/")
        (folders.add(head + "/") if rest else files.add(head))
    return tuple(sorted(folders)), files


def _code_blocks(text: str) -> list[str]:
    """The lines of fenced and indented code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") or line.startswith("\t"):
            lines.append(line)
    return lines


def _commands(text: str) -> list[str]:
    """`ncmesh ...` command lines of a doc: from code spans, and code-block lines that start
    with one (comments after ` #` cut off)."""
    found = []
    for span in CODE_SPAN.findall(text):
        m = re.search(r"(?:^|[\s(])(ncmesh [a-z].*)", span)
        if m:
            found.append(m.group(1))
    for line in _code_blocks(text):
        m = re.match(r"\s*(?:\$ )?(?:python -m )?(ncmesh [a-z].*)", line)
        if m:
            found.append(m.group(1).split(" #")[0])
    return found


def _parser_options(command: str) -> set[str]:
    from ncmesh.cli import build_parser

    parser = build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command")
    return {s for a in sub.choices[command]._actions for s in a.option_strings}


def test_every_ncmesh_command_and_option_a_doc_shows_exists():
    from ncmesh.cli import COMMANDS
    from ncmesh.experiments import available

    experiments = set(available())
    options: dict[str, set[str]] = {}
    problems = []
    for doc in _docs():
        for line in _commands(doc.read_text(encoding="utf-8")):
            try:
                words = shlex.split(line)
            except ValueError:
                words = line.split()
            command = words[1]
            if command not in COMMANDS:
                problems.append(f"{_rel(doc)}: `{line}`: no command {command!r}")
                continue
            if command not in options:
                options[command] = _parser_options(command)
            for w in words[2:]:
                flag = w.split("=")[0]
                if re.fullmatch(r"--[a-z][a-z0-9-]*", flag) and flag not in options[command]:
                    problems.append(f"{_rel(doc)}: `{line}`: {command} has no option {flag}")
            if command == "reproduce" and len(words) > 2 and re.fullmatch(r"[a-z][a-z0-9-]*", words[2]) \
                    and words[2] not in experiments:
                problems.append(f"{_rel(doc)}: `{line}`: no experiment {words[2]!r}")
    assert not problems, "\n".join(problems)


def _path_words(span: str, folders: tuple[str, ...], files: set[str]):
    for word in span.split():
        word = word.strip("(),;:'\"").removesuffix(".")
        word = re.split(r"::|:\d", word)[0]        # `file.rs::item`, `file.py:12`
        if not (word.startswith(folders) or word in files) or PLACEHOLDER.search(word):
            continue
        yield word


def _exists(word: str) -> bool:
    for base in (REPO, CRATE):
        if any(ch in word for ch in "*?"):
            if glob.glob(str(base / word)):
                return True
        elif (base / word).exists():
            return True
    return word.rstrip("/") in GENERATED


def test_every_repository_path_a_doc_names_exists():
    folders, files = _top_level()
    problems = []
    for doc in _docs():
        for span in CODE_SPAN.findall(doc.read_text(encoding="utf-8")):
            for word in _path_words(span, folders, files):
                if not _exists(word):
                    problems.append(f"{_rel(doc)}: `{word}` does not exist")
    assert not problems, "\n".join(problems)


def test_every_relative_link_resolves():
    problems = []
    for doc in _docs():
        for target in LINK.findall(doc.read_text(encoding="utf-8")):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue                                  # https:, mailto:, an anchor
            path = target.split("#")[0]
            if not (doc.parent / path).resolve().exists():
                problems.append(f"{_rel(doc)}: link ({target}) does not resolve")
    assert not problems, "\n".join(problems)


SHARED = re.compile(r"(?:\.\./|/work/|(?<=`))shared/[\w./-]*")


def test_nothing_points_to_files_outside_the_repository():
    problems = []
    for name in _tracked():
        path = REPO / name
        if path.suffix not in (".md", ".py", ".sh", ".rs", ".toml", ".txt") or name == _rel(Path(__file__)):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        is_doc = path.suffix == ".md"
        for m in SHARED.finditer(text):
            # Code may read /work/shared/ data when present (tests skip without it), and
            # name `shared/...` in a comment; only ../shared/ is a pointer to follow. Docs
            # may point to none of them.
            if not is_doc and not m.group(0).startswith("../"):
                continue
            if (name, m.group(0).rstrip(".")) in SHARED_ALLOWED:
                continue
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{name}:{line}: {m.group(0)} is outside the repository")
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- the linter itself


def test_the_linter_finds_what_it_is_for(tmp_path):
    folders, files = _top_level()
    text = ("Run `ncmesh build chain` or `ncmesh run x.toml --bogus`; see `python/ncmesh/nope.py`,\n"
            "`tests/more.rs`, `DIR/results/`, [here](nowhere.md).\n\n    ncmesh reproduce copee --quick\n")
    assert [c.split()[1] for c in _commands(text)] == ["build", "run", "reproduce"]
    assert "--bogus" not in _parser_options("run") and "--quick" in _parser_options("reproduce")
    words = [w for s in CODE_SPAN.findall(text) for w in _path_words(s, folders, files)]
    assert words == ["python/ncmesh/nope.py", "tests/more.rs"]
    assert [_exists(w) for w in words] == [False, True]
    assert LINK.findall(text) == ["nowhere.md"]
    assert SHARED.findall("see ../shared/anchors/ns3/chain_tcp.py, `shared/seeds/README.md`; shared cores") == [
        "../shared/anchors/ns3/chain_tcp.py", "shared/seeds/README.md"]


# ---------------------------------------------------------------- stated run times


def _measure_times():
    import importlib.util

    spec = importlib.util.spec_from_file_location("measure_times", REPO / "scripts" / "measure_times.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stated_times_sit_between_markers_the_timing_script_rewrites():
    from ncmesh.experiments import available

    mt = _measure_times()
    ids = {m.group(2) for doc in _docs() for m in mt.MARKER.finditer(doc.read_text(encoding="utf-8"))}
    assert ids <= mt.known_ids(), ids - mt.known_ids()
    # every time the script measures is stated somewhere (README's table)
    assert {"first-build", "test-command"} | {f"quick-{n}" for n in available()} <= ids


def test_timing_script_rewrites_only_between_markers(tmp_path, monkeypatch):
    mt = _measure_times()
    doc = tmp_path / "x.md"
    doc.write_text("a <!-- time:quick-comp -->85 s<!-- /time --> | <!-- when:quick-comp -->-<!-- /when -->\n"
                   "85 s elsewhere <!-- time:quick-ncaqm -->~1 min<!-- /time -->\n")
    monkeypatch.setattr(mt, "docs", lambda: [doc])
    monkeypatch.setattr(mt, "REPO", tmp_path)
    changes = mt.rewrite({("time", "quick-comp"): "~90 s", ("when", "quick-comp"): "2026-11-27, 2 cores"}, False)
    assert doc.read_text() == ("a <!-- time:quick-comp -->~90 s<!-- /time --> | <!-- when:quick-comp -->"
                               "2026-11-27, 2 cores<!-- /when -->\n85 s elsewhere <!-- time:quick-ncaqm -->~1 min"
                               "<!-- /time -->\n")
    assert len(changes) == 2
    assert [mt.rounded(x) for x in (3.4, 42, 150, 1500)] == ["~3 s", "~40 s", "~2.5 min", "~25 min"]
