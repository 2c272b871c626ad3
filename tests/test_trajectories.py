"""Trajectory files, written by a real ``AIAgent(save_trajectories=True)`` run (the forensic home's)."""

from __future__ import annotations

from hermes_trail.hermes.sidefiles.trajectories import read_trajectories


def test_an_agent_run_saves_one_line(forensic):
    """The run of the forensic home (``tests/forensic.py``): in its project directory, asked what the
    project does."""
    before, after = forensic.trajectory_window
    runs, strays = read_trajectories(forensic.project / "trajectory_samples.jsonl")
    assert strays == [] and len(runs) == 1
    run = runs[0]
    assert run.model == "loopback-model" and run.completed is True and run.line == 1
    assert before - 1 <= run.time.timestamp() <= after + 1  # local ISO time, read as this host's
    assert [origin for origin, _ in run.turns] == ["system", "human", "gpt"]
    assert run.turns[1][1] == "What does this project do?" and run.turns[2][1].endswith("It counts lines.")


def test_bad_lines(tmp_path):
    """Hand-built: lines Hermes' writer never produces."""
    path = tmp_path / "failed_trajectories.jsonl"
    path.write_text(
        '{"conversations": [{"from": "human", "value": "x"}, 3], "timestamp": "2026-11-30T08:00:00+00:00",'
        ' "completed": false}\nnot json\n[]\n{"timestamp": "x"}\n'
    )
    runs, strays = read_trajectories(path)
    assert len(runs) == 1 and runs[0].completed is False and runs[0].turns == [("human", "x")]
    assert runs[0].time.isoformat() == "2026-11-30T08:00:00+00:00"
    assert [(s.row, s.reason.split(":")[0]) for s in strays] == [
        (1, "unparseable record 1 (conversations entry is not a {from, value} object)"),
        (2, "unparseable line (not JSON"),
        (3, "unparseable line (not an object)"),
        (4, "unparseable line (no conversations list)"),
    ]
