"""Where ``spikex run`` puts its spikes while it runs: rank 0's spike log
``OUTDIR/.spikes.log`` (``io/spike_log.py``), made into ``OUTDIR/spikes.h5`` when the run
ends or stops. Checkpoints record the log's row count and hash, and a resume copies those
rows into a new log (the stopped run's log is only read)."""

from __future__ import annotations

import os
from pathlib import Path


class SpikeOutput:
    """Rank 0's spike log of a network's run (every rank makes one; only rank 0 writes).

    Errors are agreed by every rank: OSError (cannot write OUTDIR) from ``start``,
    ValueError (the checkpoint's spikes are gone or differ) from ``resume``.
    """

    LOG = ".spikes.log"

    def __init__(self, network, outdir: Path):
        from .. import _core

        self.network = network
        self.outdir = Path(outdir).absolute()
        self.rank0 = _core.comm_rank() == 0
        self.log = None

    @property
    def path(self) -> Path:
        return self.outdir / self.LOG

    def _populations(self):
        from ..io.output import spikes_population

        return self.network.output_populations() or spikes_population(self.network.config)

    def start(self) -> None:
        from ..io.spike_log import SpikeLog

        error = ""
        if self.rank0:
            try:
                self.outdir.mkdir(parents=True, exist_ok=True)
                self.log = SpikeLog(self.path, self._populations())
            except OSError as failure:
                error = f"-o {self.outdir}: cannot write {self.LOG}: {failure.strerror or failure}"
        _agree(error, OSError)
        self.network.stream_spikes(self.log)

    def resume(self, checkpoint) -> None:
        """Go on with the spikes of `checkpoint`'s run."""
        from ..io.spike_log import SpikeLog

        reference = checkpoint.manifest["spikes"]
        error = ""
        if self.rank0:
            try:
                if "log" not in reference:
                    raise ValueError(f"checkpoint {checkpoint.path}: its spikes are not in a spike log")
                source = Path(reference["outdir"]) / reference["log"]
                self.outdir.mkdir(parents=True, exist_ok=True)
                temporary = self.outdir / f"{self.LOG}.resume-{os.getpid()}"
                self.log = SpikeLog.resume(
                    source, reference["rows"], reference["sha256"], temporary, self._populations()
                )
                os.replace(temporary, self.path)
                self.log.path = self.path
            except (ValueError, OSError) as failure:
                error = str(failure)
        _agree(error, ValueError)
        self.network.stream_spikes(self.log)

    def reference(self) -> dict:
        """What a checkpoint's manifest says about the spikes so far (rank 0 flushes)."""
        if self.log is None:
            return {"log": self.LOG}
        self.log.flush()
        return {"outdir": str(self.outdir), "log": self.LOG, **self.log.reference()}

    def finish(self, keep_log: bool) -> Path | None:
        """Rank 0: close the log and make the SONATA file of its spikes; its temporary
        path, to be renamed spikes.h5. The log stays for the checkpoints that refer to it
        (`keep_log`), else it goes."""
        from ..io.spike_log import write_sonata

        if self.log is None:
            return None
        self.log.flush()
        self.log.close()
        sonata = self.outdir / f".spikes.h5.tmp-{os.getpid()}"
        write_sonata(self.path, self.log.rows, sonata, self._populations(), self.network.dt_ms)
        if not keep_log:
            self.path.unlink(missing_ok=True)
        return sonata


def _agree(error: str, kind) -> None:
    """Rank 0's error, raised on every rank."""
    from .. import _core
    from ..runtime.collective import broadcast_text

    if _core.comm_size() > 1:
        error = broadcast_text(error)
    if error:
        raise kind(error)
