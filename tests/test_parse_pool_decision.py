"""The parse pool is started by the parse work it would take over (bytes of each kind at
that kind's cost), not by the file count: a tree of YAML, which the parent reads anyway,
or of cheap code files is parsed in one process however many files it has."""

from __future__ import annotations

import pytest
from k8slb.run import parsing


def _files(language: str, count: int, size: int) -> list[parsing.Item]:
    return [(f"f{n}.{language}", language, b"x" * size) for n in range(count)]


def _ms(language: str, count: int, size: int) -> float:
    return count * size / 1024 * parsing.parse_ms_per_kb(language)


def test_the_children_take_the_code_up_to_an_even_share_of_the_work() -> None:
    code, yaml = _files("go", 600, 2000), _files("yaml", 2000, 1500)
    # code alone: each of two processes parses half of it
    assert parsing.pool_saving_ms(code, 2) == pytest.approx(_ms("go", 600, 2000) / 2)
    # YAML stays in the parent: with little code beside it, the children take all the code
    little = code[:20]
    assert parsing.pool_saving_ms([*yaml, *little], 2) == pytest.approx(_ms("go", 20, 2000))
    # YAML alone: nothing for a child to take
    assert parsing.pool_saving_ms(yaml, 2) == 0


def test_thousands_of_yaml_files_are_parsed_in_one_process() -> None:
    assert not parsing.fork_pays(_files("yaml", 8000, 2000), 2)


def test_a_tree_of_small_python_files_is_parsed_in_one_process() -> None:
    assert not parsing.fork_pays(_files("python", 1500, 1300), 2)


def test_code_that_costs_more_than_a_pool_is_parsed_in_a_pool() -> None:
    assert parsing.fork_pays(_files("go", 600, 2000), 2)
    assert parsing.fork_pays([*_files("yaml", 2000, 1500), *_files("go", 600, 2000)], 2)


def test_few_files_or_one_job_are_parsed_in_one_process_however_large() -> None:
    few = parsing.PARALLEL_MIN_FILES - 1
    assert not parsing.fork_pays(_files("go", few, 100_000), 2)
    assert not parsing.fork_pays(_files("go", 600, 2000), 1)


def test_parse_all_asks_for_one_process_where_the_pool_does_not_pay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[int] = []

    def fork_map(work: object, items: object, jobs: int, *_: object, **__: object) -> list[object]:
        asked.append(jobs)
        return []

    monkeypatch.setattr(parsing, "fork_map", fork_map)
    parsing.parse_all(_files("yaml", 2000, 1500), 2)
    parsing.parse_all(_files("go", 600, 2000), 2)
    assert asked == [1, 2]
