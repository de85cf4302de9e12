"""Exit codes: one IntEnum, the numbers of the CLI contract, the API's old names agree."""

from __future__ import annotations

from agenteval import api, errors
from agenteval.exit_codes import ExitCode
from agenteval.judge import JudgeConfigError, JudgeUnavailable


def test_the_contract_numbers() -> None:
    assert [(c.name, int(c)) for c in ExitCode] == [
        ("PASSED", 0),
        ("FAILED", 1),
        ("BAD_INPUT", 2),
        ("INCOMPLETE", 3),
        ("INTERNAL_ERROR", 4),
    ]


def test_api_names_are_the_enum_members() -> None:
    assert (api.EXIT_PASSED, api.EXIT_FAILED, api.EXIT_CONFIG, api.EXIT_INCOMPLETE) == (0, 1, 2, 3)
    assert api.EXIT_CONFIG is ExitCode.BAD_INPUT
    assert api.EXIT_INTERNAL is ExitCode.INTERNAL_ERROR


def test_exceptions_carry_their_exit_code() -> None:
    assert errors.ConfigError([]).exit_code == ExitCode.BAD_INPUT
    assert JudgeConfigError("x").exit_code == ExitCode.BAD_INPUT
    assert JudgeUnavailable("x").exit_code == ExitCode.INCOMPLETE
    assert errors.RunInterrupted("x").exit_code == ExitCode.INCOMPLETE
    assert errors.ControlFlow().exit_code == ExitCode.INTERNAL_ERROR
