"""One resolved configuration: ``[tool.gradguard]`` merged with a front end's options."""

from __future__ import annotations

import pytest

from gradguard.check.config import Config, ConfigError, ConfigFile, read_config_file, resolve
from gradguard.check.rules import all_rules


def codes(config: Config) -> list:
    return list(config.rule_codes)


def test_defaults_are_the_rules_on_by_default():
    config = resolve(all_rules())
    assert codes(config) == [r.code for r in all_rules() if r.default_enabled]
    assert config.require_torch_import and not config.fix and config.jobs == 1 and not config.cache


def test_file_settings_are_read(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.gradguard]\n"
        'select = ["GG1"]\nignore = ["GG102"]\nextend-select = ["GG206"]\nexclude = ["legacy"]\n'
        'per-file-ignores = { "tests/*" = ["gg101"] }\nrequire-torch-import = false\n'
    )
    file = read_config_file(tmp_path / "sub")
    assert file.path == tmp_path / "pyproject.toml" and file.root == tmp_path
    config = resolve(all_rules(), file)
    assert codes(config) == ["GG101", "GG103", "GG104", "GG105", "GG106", "GG107", "GG206"]
    assert config.exclude == ("legacy",) and not config.require_torch_import
    assert config.ignored_for(str(tmp_path / "tests" / "t.py")) == ["GG101"]
    assert config.ignored_for(str(tmp_path / "src" / "t.py")) == []
    assert config.is_excluded(str(tmp_path / "legacy")) and not config.is_excluded(str(tmp_path / "src"))


def test_options_override_the_file():
    file = ConfigFile(select=("GG1",), ignore=("GG101", "GG103"))
    # A code selected by the front end wins over the file's ignore of it.
    config = resolve(all_rules(), file, select=["GG101", "GG103", "GG204"], ignore=["GG204"])
    assert codes(config) == ["GG101", "GG103"]
    assert not resolve(all_rules(), file, all_files=True).require_torch_import


def test_unknown_code_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown rule code or prefix: GG999"):
        resolve(all_rules(), select=["GG999"])


def test_bad_file_is_one_line_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.gradguard]\nselect = 3\n")
    with pytest.raises(ConfigError, match="select must be a list of rule codes"):
        read_config_file(tmp_path)


def test_config_is_frozen_and_makes_fresh_rules():
    config = resolve(all_rules(), select=["GG204"])
    first, second = config.make_rules(), config.make_rules()
    assert [r.code for r in first] == ["GG204"] and first[0] is not second[0]
    with pytest.raises(AttributeError):
        config.fix = True  # type: ignore[misc]
