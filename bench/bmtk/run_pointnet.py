"""Run a SONATA config on BMTK's pointnet (NEST) as BMTK's own run_pointnet.py does (run
with an interpreter that has bmtk and NEST 3.10; bench/bmtk/compare_bmtk.py does).

    python run_pointnet.py CONFIG.json       # spikes in the config's output_dir/spikes.h5
"""

from __future__ import annotations

import sys

from bmtk.simulator import pointnet


def main(config_file: str) -> None:
    configure = pointnet.Config.from_json(config_file)
    configure.build_env()
    network = pointnet.PointNetwork.from_config(configure)
    simulator = pointnet.PointSimulator.from_config(configure, network)
    simulator.run()


if __name__ == "__main__":
    main(sys.argv[1])
