"""Raising ScenarioError from Python code, shaped like the ones the core raises."""

from ._core import ScenarioError


def scenario_error(field: str, message: str) -> ScenarioError:
    """A ScenarioError whose str() is the one line 'field: message'."""
    err = ScenarioError(f"{field}: {message}" if field else message)
    err.field = field
    err.message = message
    return err
