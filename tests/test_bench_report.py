"""The closing summary of `make bench`: one line per goal of the release, measured or not (no servers)."""

from __future__ import annotations

from bench.machine import conditions
from bench.report import TARGETS, Headline, Row, summary, table, within


def _cells(line: str) -> list[str]:
    """The cells of a markdown table line (escaped `\\|` stays inside its cell)."""
    return [cell.strip() for cell in line.strip().strip("|").replace("\\|", "\0").split("|")]


def _summary_lines(rows: list[Row]) -> dict[str, list[str]]:
    lines = summary(rows).splitlines()
    assert _cells(lines[0]) == ["figure", "measured", "x floor (same run)", "target", "met"]
    assert set(lines[1]) <= set("|-:")
    return {_cells(line)[0]: _cells(line) for line in lines[2:]}


class TestSummary:
    def test_every_goal_has_a_line_in_order_even_when_nothing_was_measured(self) -> None:
        lines = summary([]).splitlines()[2:]
        for line, target in zip(lines, TARGETS, strict=True):
            figure, measured, versus_floor, goal, met = _cells(line)
            assert figure == target.figure
            assert measured == f"not measured: {target.how}"
            assert (versus_floor, goal, met) == ("—", target.goal, "not measured")

    def test_a_measured_goal_shows_its_figure_floor_ratio_and_verdict(self) -> None:
        rows = [
            Row(
                "fire",
                "x",
                headlines=(Headline("fire", "426 fires/s, p99 156 ms", "28.7x (floor 12,240)", False),),
            ),
            Row("mcp", "y", headlines=(Headline("mcp", "1.9 ms per call", "1.1x (reused 1.7 ms)", True),)),
            Row("a row with no goal", "z"),
        ]
        by_figure = _summary_lines(rows)
        fire = by_figure["webhook fire, 16 clients → 16 webhooks"]
        assert fire[1:] == [
            "426 fires/s, p99 156 ms",
            "28.7x (floor 12,240)",
            "≤ 8x the INSERT floor, p99 < 50 ms",
            "not met",
        ]
        mcp = by_figure["MCP tool call, pooled session"]
        assert mcp[1:] == ["1.9 ms per call", "1.1x (reused 1.7 ms)", "≤ 1.5x the reused-session cost", "met"]
        assert by_figure["run latency, 3 steps, p50"][4] == "not measured"
        assert len(by_figure) == len(TARGETS)

    def test_the_first_headline_of_a_goal_is_the_one_shown(self) -> None:
        rows = [
            Row("a", "1", headlines=(Headline("load", "first", "1.0x", True),)),
            Row("b", "2", headlines=(Headline("load", "second", "9.0x", False),)),
        ]
        load = next(
            cells for figure, cells in _summary_lines(rows).items() if figure.startswith("outside load")
        )
        assert load[1:3] == ["first", "1.0x"]
        assert load[4] == "met"

    def test_a_pipe_inside_a_cell_cannot_split_it(self) -> None:
        rows = [Row("r", "s", headlines=(Headline("latency", "p50 | p99", "2.0x | 3.0x", True),))]
        latency = _summary_lines(rows)["run latency, 3 steps, p50"]
        assert latency[1:3] == ["p50 \0 p99", "2.0x \0 3.0x"]
        assert len(latency) == 5

    def test_a_goal_not_in_the_targets_is_not_shown(self) -> None:
        rows = [Row("r", "s", headlines=(Headline("no-such-goal", "1", "1x", True),))]
        assert "no-such-goal" not in summary(rows)
        assert "| 1 |" not in summary(rows)


class TestTable:
    def test_one_line_per_row_with_six_cells(self) -> None:
        lines = table([Row("a | b", "1 ms", "0.5 ms", "2.0x", "d", target="≤ 3x")]).splitlines()
        assert len(lines) == 3
        assert _cells(lines[2]) == ["a \0 b", "1 ms", "0.5 ms", "2.0x", "≤ 3x", "d"]


class TestWithin:
    def test_at_the_limit_is_within_and_above_is_not(self) -> None:
        assert within(3.0, 1.0, 3)
        assert not within(3.01, 1.0, 3)

    def test_no_floor_is_never_within(self) -> None:
        assert not within(1.0, 0.0, 3)


class TestConditions:
    def test_a_quiet_machine_says_so(self) -> None:
        assert conditions((0.0, 5.0, 5.0), 0.02).startswith("quiet: ")

    def test_load_before_the_start_is_measured_under_load(self) -> None:
        assert "measured under load" in conditions((64.0, 1.0, 1.0), 0.0)

    def test_other_work_during_the_run_is_measured_under_load(self) -> None:
        said = conditions((0.0, 0.0, 0.0), 0.4)
        assert "measured under load" in said
        assert "40%" in said
