"""The planner's normal form of the active special-effect list (``cpp/.../effect_order.h``).

The search stores each state with its active list in a normal form: effects that commute are
listed in a fixed order, whichever started first. That is sound only if a state and its normal
form have the same future. Checked here on random small domains (all five special-effect kinds,
nested, creation and deletion: ``robotouille.testing.strategies``): two copies of a state are
stepped side by side with the same random valid actions, one left in creation order and one
normalized after every step as the search does; after every step both must have the same
facts, the same effect progress and object ranks, the same status and the same active
templates. Random domains seldom make two effects touch the same fact (about one walk in twenty
reaches an unsorted list at all); tests/cpp/effect_order_test.cc steps random tasks over five
facts, where they often do.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import robotouille
from robotouille import _core
from robotouille.testing.strategies import domains_and_environments


def _active(counters: Any) -> list[int]:
    return sorted(counters[2 : 2 + counters[1]].tolist())


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_a_state_and_its_normal_form_have_the_same_future(data: st.DataObject) -> None:
    domain_doc, env_doc = data.draw(domains_and_environments())
    try:
        env = robotouille.load(env_doc, domain_doc)
    except robotouille.SpecError:
        assume(False)
    core = env.task.core
    words = np.repeat(env._words[:1], 2, axis=0)
    counters = np.repeat(env._counters[:1], 2, axis=0)
    applied = np.zeros((2, 1), np.uint8)
    status = np.zeros(2, np.int32)
    progress = 2 + core.num_templates  # node words, then object ranks
    reordered = False
    for _ in range(data.draw(st.integers(1, 40))):
        valid = _core.valid_groundings(core, words[0], counters[0])
        assert valid == _core.valid_groundings(core, words[1], counters[1])
        if not valid:
            break
        grounding = data.draw(st.sampled_from(valid))
        _core.step(core, words, counters, np.full((2, 1), grounding, np.int32), applied, status)
        assert applied[0, 0] == applied[1, 0] == 1
        assert status[0] == status[1]
        assert (words[0] == words[1]).all()
        assert (counters[0, progress:] == counters[1, progress:]).all()
        assert _active(counters[0]) == _active(counters[1])
        if status[0] & _core.STATUS_POOL_EXHAUSTED:
            break
        reordered = _core.normalize_effect_order(core, counters[1]) or reordered
        assert not _core.normalize_effect_order(core, counters[1])  # its own normal form
    event("reordered" if reordered else "never reordered")


def test_a_malformed_active_list_is_refused() -> None:
    (instance,) = robotouille.datasets.load("asynchronous", seeds=[42], tasks=["0"])
    env = instance.load()
    counters = env._counters[0].copy()
    counters[1] = env.task.core.num_templates + 1
    with pytest.raises(ValueError, match="active-list length"):
        _core.normalize_effect_order(env.task.core, counters)
    counters[1] = 1
    counters[2] = -5
    with pytest.raises(ValueError, match="out of range"):
        _core.normalize_effect_order(env.task.core, counters)
