"""The platform seam (``generator.inputs.portable``) and the user's folders (``generator.score.userkey``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.inputs import portable
from generator.score.userkey import default_folder, default_key_file


def test_a_lock_is_exclusive_across_descriptors_and_dies_with_its_descriptor(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    first = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    second = os.open(path, os.O_RDWR)
    try:
        assert portable.try_lock(first)
        assert not portable.try_lock(second)  # held, even by this same process
        os.close(first)
        assert portable.try_lock(second)  # the holder's descriptor closed: free at once
    finally:
        os.close(second)


def test_a_folder_lock_is_exclusive_and_never_taken_through_a_link(tmp_path: Path) -> None:
    folder = tmp_path / "spool"
    folder.mkdir()
    (tmp_path / "link").symlink_to(folder)
    held = portable.open_folder(folder)
    assert held is not None  # this platform opens folders (POSIX)
    try:
        portable.wait_lock(held)
        other = portable.open_folder(folder, follow=False)
        assert other is not None
        try:
            assert not portable.try_lock(other)
        finally:
            os.close(other)
        with pytest.raises(OSError):
            portable.open_folder(tmp_path / "link", follow=False)
    finally:
        os.close(held)


def test_the_platform_facts_are_those_of_this_posix_system() -> None:
    assert portable.user_id() == os.geteuid()
    assert portable.usable_cores() == len(os.sched_getaffinity(0))
    assert portable.can_fork()
    assert portable.NOFOLLOW == os.O_NOFOLLOW and portable.DIRECTORY == os.O_DIRECTORY


def test_the_cache_and_key_folders_follow_the_xdg_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.delenv("BENCHSITE_CACHE_KEY")
    assert default_folder() == tmp_path / "cache-home" / "benchsite"
    assert default_key_file() == tmp_path / "config-home" / "benchsite" / "cache-key"
    monkeypatch.setenv("BENCHSITE_CACHE_KEY", str(tmp_path / "my-key"))
    assert default_key_file() == tmp_path / "my-key"


def test_without_xdg_variables_the_folders_are_the_usual_ones_below_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("BENCHSITE_CACHE_KEY")
    assert default_folder() == tmp_path / ".cache" / "benchsite"
    assert default_key_file() == tmp_path / ".config" / "benchsite" / "cache-key"
