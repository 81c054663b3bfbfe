"""corpus build end to end on a tiny .deb built by dpkg-deb, with a fake apt-get; no network."""

import json
import shutil
import subprocess
import sys

import polib
import pytest

from transformer_viz.__main__ import main
from transformer_viz.corpus import build as corpus
from transformer_viz.corpus import debs
from transformer_viz.corpus.build import HeldOut, build_corpus, load_corpus_pairs
from transformer_viz.corpus.ding import Pair
from transformer_viz.corpus.sources import Source

pytestmark = pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
MO_PATH = "usr/share/locale/de/LC_MESSAGES/toy.mo"
ENTRIES = [
    ("The door is open.", "Die Tür ist offen."),
    ("Where is the station?", "Wo ist der Bahnhof?"),  # held out below (as an English text)
    ("Where is the train station?", "Wo ist der Bahnhof?"),  # its German target is held out too
    ("%s has joined.", "%s ist beigetreten."),
    ("I am hungry.", "Ich habe Hunger."),
]
TOY = Source("toy", ("toy",), (MO_PATH,), "gettext", "MIT", "Toy game and its translators")


def make_deb(folder, package="toy", entries=ENTRIES, files=None):
    """A .deb holding one German .mo file, a README that the source does not read, and `files` (path: text)."""
    root = folder / f"{package}-root"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN/control").write_text(
        f"Package: {package}\nVersion: 1.0-1\nArchitecture: all\nMaintainer: T <t@example.org>\nDescription: toy\n"
    )
    catalog = polib.POFile()
    catalog.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    for msgid, msgstr in entries:
        catalog.append(polib.POEntry(msgid=msgid, msgstr=msgstr))
    (root / MO_PATH).parent.mkdir(parents=True)
    catalog.save_as_mofile(str(root / MO_PATH))
    (root / "usr/share/doc/toy").mkdir(parents=True)
    (root / "usr/share/doc/toy/README").write_text("not read")
    for path, text in (files or {}).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    deb = folder / f"{package}_1.0-1_all.deb"
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(root), str(deb)], check=True, capture_output=True)
    return deb


def fake_apt_get(folder, deb, fail=()):
    """A folder holding an `apt-get` that 'downloads' ``deb`` into the working folder (or fails)."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    script = bin_dir / "apt-get"
    failing = " ".join(fail)
    script.write_text(
        "#!/bin/sh\n"
        f'for p in {failing}; do [ "$2" = "$p" ] && echo "E: Unable to locate package $2" >&2 && exit 100; done\n'
        f'echo "$@" >> "{folder}/apt-calls"\n{shutil.which("cp")} "{deb}" .\n'
    )
    script.chmod(0o755)
    for tool in ("dpkg-deb", "tar"):  # dpkg-deb runs tar to read the control member
        (bin_dir / tool).symlink_to(shutil.which(tool))
    return bin_dir


def test_extract_members_takes_only_the_matching_files(tmp_path):
    deb = make_deb(tmp_path)
    written = debs.extract_members(deb, (MO_PATH,), tmp_path / "out")
    assert written == [tmp_path / "out" / MO_PATH]
    assert [p.name for p in (tmp_path / "out").rglob("*") if p.is_file()] == ["toy.mo"]
    assert debs.deb_version(deb) == "1.0-1"


def test_fetch_uses_apt_get_download_once_then_the_cache(tmp_path, monkeypatch):
    deb = make_deb(tmp_path)
    monkeypatch.setenv("PATH", str(fake_apt_get(tmp_path, deb)))
    cache = tmp_path / "cache"
    assert debs.fetch_debs(["toy"], cache) == {"toy": cache / deb.name}
    assert debs.fetch_debs(["toy"], cache) == {"toy": cache / deb.name}
    assert (tmp_path / "apt-calls").read_text() == "download toy\n"  # the second call reused the cache


def test_missing_apt_get_names_the_packages_and_from_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no apt-get anywhere
    with pytest.raises(debs.FetchError, match=r"apt-get not found.*apt-get download toy.*--from-dir"):
        debs.fetch_debs(["toy"], tmp_path / "cache")


def test_from_dir_needs_no_apt_get(tmp_path, monkeypatch):
    deb = make_deb(tmp_path)
    monkeypatch.setenv("PATH", str(fake_apt_get(tmp_path, deb, fail=["toy"])))
    assert debs.fetch_debs(["toy"], tmp_path / "cache", from_dir=tmp_path) == {"toy": deb}


def test_build_writes_clean_leak_free_pairs_and_reports_a_failed_source(tmp_path, monkeypatch):
    deb = make_deb(tmp_path)
    monkeypatch.setenv("PATH", str(fake_apt_get(tmp_path, deb, fail=["gone"])))
    gone = Source("gone", ("gone",), ("*.mo",), "gettext", "MIT", "never fetched")
    monkeypatch.setattr(corpus, "select_sources", lambda names: [gone, TOY])
    held = HeldOut([Pair("where is the STATION", "Wo ist der Bahnhof!", "sentence")])
    manifest = build_corpus(tmp_path / "corpus", tmp_path / "cache", held=held, command="test")
    lines = sorted((tmp_path / "corpus/toy.tsv").read_text().splitlines())  # a .mo keeps its entries sorted
    assert lines == ["I am hungry.\tIch habe Hunger.", "The door is open.\tDie Tür ist offen."]
    entry = manifest["sources"]["toy"]
    assert entry["packages"] == {"toy": "1.0-1"} and entry["dropped"]["placeholder"] == 1
    assert entry["dropped"]["held_out_leak"] == 2 and entry["licence"] == "MIT"
    assert "gone" in manifest["failed"] and "apt-get download gone" in manifest["failed"]["gone"]
    assert json.loads((tmp_path / "corpus/corpus.json").read_text())["total_pairs"] == 2
    assert "| toy | 2 | MIT | toy 1.0-1 |" in (tmp_path / "corpus/ATTRIBUTION.md").read_text()


def test_load_corpus_pairs_remembers_sources_and_drops_duplicates(tmp_path):
    (tmp_path / "corpus.json").write_text(json.dumps({"sources": {"a": {}, "b": {}}}))
    (tmp_path / "a.tsv").write_text("The door is open.\tDie Tür ist offen.\nHello\tHallo\n")
    (tmp_path / "b.tsv").write_text("Hello\tHallo\nI am hungry.\tIch habe Hunger.\n")
    pairs = load_corpus_pairs(tmp_path)
    assert [(p.src, p.source) for p in pairs] == [("The door is open.", "a"), ("Hello", "a"), ("I am hungry.", "b")]
    assert pairs[0].kind == "sentence"
    assert [p.source for p in load_corpus_pairs(tmp_path, sources=["b"])] == ["b", "b"]
    held_out = [Pair("i am HUNGRY", "Mir ist kalt.", "sentence")]  # another split's test pair
    assert [p.src for p in load_corpus_pairs(tmp_path, held_out=held_out)] == ["The door is open.", "Hello"]
    with pytest.raises(ValueError, match="no sources"):
        load_corpus_pairs(tmp_path, sources=["c"])
    with pytest.raises(FileNotFoundError, match="corpus build"):
        load_corpus_pairs(tmp_path / "nowhere")


def test_cli_without_the_corpus_requirements_names_the_pip_command(tmp_path, monkeypatch, capsys):
    deb = make_deb(tmp_path)
    monkeypatch.setattr(corpus, "select_sources", lambda names: [TOY])
    monkeypatch.setattr(corpus, "held_out_sets", lambda cache, ding: (HeldOut(), {}))
    monkeypatch.setitem(sys.modules, "polib", None)  # import polib now raises ImportError
    argv = ["corpus", "build", "--out", str(tmp_path / "c"), "--cache", str(tmp_path / "cache")]
    assert main([*argv, "--from-dir", str(deb.parent)]) == 2
    assert "pip install -r requirements-corpus.txt" in capsys.readouterr().err


def test_nothing_of_dings_valid_test_or_the_everyday_set_reaches_training(tmp_path, monkeypatch):
    """The real held-out sets: Ding's split (seed 0) of a fixture dictionary and a fixture everyday wheel."""
    import hashlib

    from tests.test_corpus_everyday import make_wheel
    from transformer_viz.corpus import everyday
    from transformer_viz.corpus.ding import load_ding
    from transformer_viz.corpus.pairs import split_pairs

    ding = tmp_path / "de-en"
    ding.write_text("".join(f"Satz Nummer {i} ist gut. :: Sentence number {i} is good.\n" for i in range(1600)))
    splits = split_pairs(load_ding(ding), seed=0)
    test, valid = splits.test[0], splits.valid[0]
    cache = tmp_path / "cache"
    cache.mkdir()
    wheel = make_wheel(cache)
    monkeypatch.setattr(everyday, "SHA256", hashlib.sha256(wheel.read_bytes()).hexdigest())
    entries = [
        (test.src.upper(), "Etwas ganz anderes."),  # a Ding test source, in other case
        ("Something else entirely.", valid.tgt.rstrip(".")),  # a Ding valid target, without its full stop
        ("Hello, I'm Maria!", "Hallo, ich bin Maria!"),  # an everyday pair, other punctuation
        (splits.train[0].src, splits.train[0].tgt),  # Ding training pairs may stay
        ("The door is open.", "Die Tür ist offen."),
    ]
    monkeypatch.setattr(corpus, "select_sources", lambda names: [TOY])
    manifest = build_corpus(tmp_path / "out", cache, from_dir=make_deb(tmp_path, entries=entries).parent, ding=ding)
    kept = {line.split("\t")[0] for line in (tmp_path / "out/toy.tsv").read_text().splitlines()}
    assert kept == {splits.train[0].src, "The door is open."}
    assert manifest["held_out"] == {"ding valid+test": 1500, "auf-deutsch": 5}


def test_no_sources_test_slice_trains_through_another_source(tmp_path, monkeypatch):
    from tests.tiny import SENTENCES
    from transformer_viz.corpus.pairs import _source_key

    sentences = [(en.capitalize(), de.capitalize()) for en, de in SENTENCES]
    first = make_deb(tmp_path, "toya", sentences[:20])
    make_deb(tmp_path, "toyb", sentences[:40])  # holds every sentence of toya too
    sources = [Source(n, (n,), (MO_PATH,), "gettext", "MIT", n) for n in ("toya", "toyb")]
    monkeypatch.setattr(corpus, "select_sources", lambda names: sources)
    manifest = build_corpus(tmp_path / "out", tmp_path / "cache", from_dir=first.parent, held=HeldOut())

    def keys(name):
        return {_source_key(line.split("\t")[0]) for line in open(tmp_path / "out" / name)}

    tests_a, tests_b = keys("toya.test.tsv"), keys("toyb.test.tsv")
    assert (len(tests_a), len(tests_b)) == (2, 4)  # a tenth of each source's sentences
    assert not (tests_a | tests_b) & (keys("toya.tsv") | keys("toyb.tsv"))
    assert manifest["sources"]["toyb"]["dropped"]["other_source_test"] == len(tests_a - tests_b)


def test_attribution_groups_packages_by_version():
    versions = {"game-data": "1:1.0-1", "game-campaign": "1:1.0-1", "game-music": "2.0"}
    assert corpus.package_list(versions) == "game-data, game-campaign 1:1.0-1; game-music 2.0"


def test_a_broken_deb_is_reported_by_name(tmp_path):
    broken = tmp_path / "toy_1.0-1_all.deb"
    broken.write_text("not an archive")
    with pytest.raises(debs.FetchError, match="dpkg-deb could not read .*toy_1.0-1_all.deb.*delete it"):
        debs.extract_members(broken, ("*",), tmp_path / "out")


def test_the_default_sources_leave_out_the_optional_ones_and_all_means_all():
    from transformer_viz.corpus.sources import SOURCES, select_sources

    default = {s.name for s in select_sources()}
    assert "warzone2100" not in default and "wesnoth" in default
    assert len(select_sources("all")) == len(SOURCES) > len(default)
    assert [s.name for s in select_sources("flare,wesnoth")] == ["wesnoth", "flare"]  # declaration order
    with pytest.raises(ValueError, match="unknown corpus sources \\['nope'\\]"):
        select_sources("wesnoth,nope")


def test_german_text_alone_is_cleaned_held_out_and_written_beside_the_pairs(tmp_path, monkeypatch, capsys):
    cookies = "Morgenstund hat Gold im Mund.\n%\nWo ist der Bahnhof?\n%\nDie Tür ist offen.\n%\nHallo %s!\n%\n"
    deb = make_deb(tmp_path, files={"usr/share/games/fortunes/de/sprichworte": cookies})
    fortunes = Source("cookies", ("toy",), ("usr/share/games/fortunes/de/*",), "fortunes", "GPL-2.0", "the cookies")
    monkeypatch.setattr(corpus, "select_sources", lambda names: [TOY, fortunes])
    monkeypatch.setattr(corpus, "held_out_sets", lambda cache, ding: (HeldOut(), {}))
    (tmp_path / "out").mkdir()
    (tmp_path / "out/cookies.de.txt").write_text("an earlier build's\n")
    (tmp_path / "out/toy.de.txt").write_text("an earlier build's, now stale\n")
    held = HeldOut([Pair("Where is the station?", "Wo ist der Bahnhof?", "sentence")])
    manifest = build_corpus(tmp_path / "out", tmp_path / "cache", from_dir=deb.parent, held=held)
    # held out as a target, and a text of another source's pairs may stay: it is German all the same
    assert (tmp_path / "out/cookies.de.txt").read_text() == "Morgenstund hat Gold im Mund.\nDie Tür ist offen.\n"
    assert not (tmp_path / "out/toy.de.txt").exists() and (tmp_path / "out/cookies.tsv").read_text() == ""
    german = manifest["sources"]["cookies"]["german"]
    assert german["sentences"] == 2 and german["units"] == 4
    assert german["dropped"]["held_out_leak"] == 1 and german["dropped"]["placeholder"] == 1
    assert manifest["german_sentences"] == 2 and manifest["sources"]["toy"]["german"]["sentences"] == 0
    assert manifest["download_bytes"] == deb.stat().st_size  # both sources read the one package: counted once
    assert "| cookies | 0 + 2 German sentences alone | GPL-2.0 |" in (tmp_path / "out/ATTRIBUTION.md").read_text()

    argv = ["corpus", "build", "--out", str(tmp_path / "cli"), "--cache", str(tmp_path / "cache")]
    assert main([*argv, "--from-dir", str(deb.parent)]) == 0
    printed = capsys.readouterr().out
    assert "3 German alone" in printed and "3 German sentences without English" in printed
