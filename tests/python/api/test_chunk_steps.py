"""How a controlled run (`spikex run`) cuts itself into chunks (run_control.chunk_steps).

Between two chunks the ranks gather spikes and agree on the next chunk; a run cut into one
chunk per interval paid that about a hundred times (10-15 % of a 1 s run's simulate time).
"""

import pytest
from spikex.api.run_control import CHUNK_GROWTH, CHUNK_WALL_S, MIN_CHUNK_WALL_S, chunk_steps

INTERVAL = 15


@pytest.mark.parametrize(
    ("steps_done", "seconds", "cap"),
    [
        (15, 0.001, 15),
        (600, 0.01, 15),
        (150, 1.0, 300),
        (3000, 0.5, 30),
        (15, 100.0, 15),
        (45, 0.0, 15),
    ],
)
def test_chunks_are_whole_intervals_and_at_least_one(steps_done, seconds, cap):
    steps = chunk_steps(steps_done, seconds, INTERVAL, cap)
    assert steps >= INTERVAL
    assert steps % INTERVAL == 0


def test_a_fast_run_is_not_cut_finer_than_the_floor():
    # 60,000 steps a second, a progress step of 20 steps (a 2,000-step run's 1 %): the
    # chunk holds a quarter of a second's steps, not 20.
    steps = chunk_steps(60_000, 1.0, INTERVAL, 20)
    assert steps == int(60_000 * MIN_CHUNK_WALL_S) // INTERVAL * INTERVAL


def test_the_progress_step_holds_while_it_is_longer_than_the_floor():
    # 600 steps a second: the floor is 150 steps, the progress step 300.
    assert chunk_steps(600, 1.0, INTERVAL, 300) == 300


def test_no_chunk_is_longer_than_the_wall_time_aimed_at():
    # 100 steps a second and a progress step of 10,000 steps: 2 s of steps.
    assert (
        chunk_steps(1_000, 10.0, INTERVAL, 10_000) == int(100 * CHUNK_WALL_S) // INTERVAL * INTERVAL
    )


def test_a_quick_first_interval_does_not_make_an_overlong_chunk():
    # The first chunk (one interval) ran in 10 us: its pace says 375,000 steps for the floor,
    # but the next chunk is at most CHUNK_GROWTH times the last.
    assert chunk_steps(INTERVAL, 1e-5, INTERVAL, INTERVAL) == CHUNK_GROWTH * INTERVAL


def test_without_a_measured_pace_the_progress_step_is_taken():
    assert chunk_steps(0, 0.0, INTERVAL, 300) == 300
