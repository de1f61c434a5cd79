"""Tests of the installed mock-appleid wheel: its Python API, its pytest plugin (loaded through the
wheel's pytest11 entry point, not from this tree) and two sample relying parties signing in through it."""
import pathlib

pytest_plugins = ["pytester"]

HERE = pathlib.Path(__file__).resolve().parent
SAMPLE_SCENARIO = HERE / "scenarios" / "sample-rps.yaml"
