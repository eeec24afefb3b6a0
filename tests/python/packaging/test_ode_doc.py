"""docs/dev/ode.md's cost table is the one bench/ode_cost_table.py makes from
bench/results/model_step_cost.json (numbers in docs come from result files)."""

from __future__ import annotations

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import ode_cost_table


def test_ode_cost_table_is_current():
    result, baseline = ode_cost_table.load()
    assert set(result["models"]) >= {"iaf_psc_exp", "iaf_cond_exp"}
    text = ode_cost_table.DOC.read_text()
    assert ode_cost_table.table(result, baseline) in text, "docs/dev/ode.md is stale: python bench/ode_cost_table.py"
