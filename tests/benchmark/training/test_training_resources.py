"""The record's `resources` (benchmark.training.resources): an epoch the meter did not see
is None, never a smaller cost; the threads of every epoch survive a resume."""

from benchmark.training.resources import ResourceMeter, resources


def test_every_epoch_counted_gives_the_sums():
    cost = resources([2.0, 3.0, 4.0], best_epoch=2, epochs=3)
    assert cost["cpu_seconds_per_epoch"] == [2.0, 3.0, 4.0]
    assert cost["train_cpu_seconds"] == 9.0
    assert cost["cpu_seconds_to_selected"] == 5.0


def test_epochs_before_a_resume_without_meter_state_are_uncounted():
    # 24 epochs trained, the meter saw only the last 4 (resumed after epoch 20)
    cost = resources([17.0, 16.0, 16.0, 17.0], best_epoch=9, epochs=24)
    assert cost["cpu_seconds_per_epoch"] == [None] * 20 + [17.0, 16.0, 16.0, 17.0]
    assert cost["train_cpu_seconds"] is None
    assert cost["cpu_seconds_to_selected"] is None


def test_a_selected_epoch_inside_the_counted_part_keeps_its_cost():
    cost = resources([1.0, 1.5], best_epoch=4, epochs=4)  # epochs 3 and 4 counted
    assert cost["cpu_seconds_to_selected"] is None  # epochs 1-2 are needed and unknown
    assert resources([], best_epoch=None, epochs=0)["train_cpu_seconds"] == 0.0


def test_threads_are_kept_per_epoch_and_none_where_a_checkpoint_kept_none():
    cost = resources([2.0, 3.0, 4.0], best_epoch=2, epochs=3, threads=[1, 1, 2])
    assert cost["threads_per_epoch"] == [1, 1, 2]
    assert resources([2.0], best_epoch=1, epochs=3)["threads_per_epoch"] == [None] * 3
    meter = ResourceMeter()
    meter.load_state_dict({"cpu_seconds_per_epoch": [5.0, 6.0]})  # a checkpoint of before
    assert meter.threads == [None, None]
    meter.load_state_dict({"cpu_seconds_per_epoch": [5.0, 6.0], "threads_per_epoch": [1, 2]})
    assert meter.state_dict() == {"cpu_seconds_per_epoch": [5.0, 6.0],
                                  "threads_per_epoch": [1, 2],
                                  "precision_per_epoch": [None, None]}  # fmt: skip
    meter.load_state_dict({"cpu_seconds_per_epoch": [], "threads_per_epoch": [1]})
    assert meter.threads == []  # one per counted epoch, never more


def test_precision_is_kept_per_epoch_as_the_machines_resolved_it():
    # `trainer.precision: auto` is bf16 on one machine and float32 on the next
    cost = resources([2.0, 3.0], best_epoch=2, epochs=3, precision=["bf16-mixed", "32-true"])
    assert cost["precision_per_epoch"] == [None, "bf16-mixed", "32-true"]
    meter = ResourceMeter()
    meter.load_state_dict({"cpu_seconds_per_epoch": [5.0, 6.0],
                           "precision_per_epoch": ["bf16-mixed"]})  # fmt: skip
    assert meter.precision == [None, "bf16-mixed"]
