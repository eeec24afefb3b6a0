"""The NESTML release spikex's generator is written for (pyproject.toml's ``nestml`` extra
pins it; the generator refuses another)."""

NESTML_VERSION = "9.0.0"
