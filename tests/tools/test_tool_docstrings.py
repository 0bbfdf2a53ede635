"""Descriptions from Google, NumPy and reST docstrings."""

import pytest

from praisonlike.tools import FunctionTool, parse_docstring, tool

GOOGLE = """Get the weather forecast.

    Uses the national service.

    Args:
        city (str): The city name,
            for example "Oslo".
        days: How many days
            to forecast.
        *extra: ignored.

    Returns:
        str: the forecast.

    Raises:
        ValueError: never.
    """

NUMPY = """Get the weather forecast.

    Uses the national service.

    Parameters
    ----------
    city : str
        The city name,
        for example "Oslo".
    days : int, optional
        How many days
        to forecast.
    lat, lon : float
        Coordinates.

    Returns
    -------
    str
        the forecast.
    """

REST = """Get the weather forecast.

    Uses the national service.

    :param city: The city name,
        for example "Oslo".
    :param int days: How many days
        to forecast.
    :type days: int
    :returns: the forecast.
    :raises ValueError: never.
    """


@pytest.mark.parametrize("doc", [GOOGLE, NUMPY, REST], ids=["google", "numpy", "rest"])
def test_description_and_params_for_each_style(doc):
    parsed = parse_docstring(doc)
    assert parsed.description == "Get the weather forecast.\n\nUses the national service."
    assert parsed.params["city"] == 'The city name, for example "Oslo".'
    assert parsed.params["days"] == "How many days to forecast."
    assert "forecast." not in parsed.params.values()


def test_numpy_multiple_names_share_a_description():
    parsed = parse_docstring(NUMPY)
    assert parsed.params["lat"] == "Coordinates."
    assert parsed.params["lon"] == "Coordinates."


def test_google_star_names_are_stripped():
    assert parse_docstring(GOOGLE).params["extra"] == "ignored."


def test_google_section_aliases():
    parsed = parse_docstring(
        """Do it.

        Arguments:
            a: first.

        Keyword Args:
            b: second.
        """
    )
    assert parsed.params == {"a": "first.", "b": "second."}
    assert parsed.description == "Do it."


def test_google_types_with_parentheses_and_description_on_next_line():
    parsed = parse_docstring(
        """Do it.

        Args:
            mapping (dict(str, int)): counts (per key).
            later:
                described below the name.
        """
    )
    assert parsed.params == {"mapping": "counts (per key).", "later": "described below the name."}


def test_rest_type_lines_and_other_fields_are_not_params():
    parsed = parse_docstring(REST)
    assert set(parsed.params) == {"city", "days"}


def test_description_stops_at_first_section_and_other_sections_are_dropped():
    parsed = parse_docstring(
        """Summary.

        Examples:
            >>> f(1)
        """
    )
    assert parsed.description == "Summary."
    assert parsed.params == {}


def test_plain_docstring_and_no_docstring():
    assert parse_docstring("Just a line.").description == "Just a line."
    assert parse_docstring("  First line.\n\n  Second paragraph.\n").description == (
        "First line.\n\nSecond paragraph."
    )
    assert parse_docstring(None).description == ""
    assert parse_docstring("   ").params == {}


def test_inline_colon_text_is_not_a_section():
    parsed = parse_docstring("Note: this is part of the description.\n\nArgs:\n    x: the x.")
    assert parsed.description == "Note: this is part of the description."
    assert parsed.params == {"x": "the x."}


@pytest.mark.parametrize("doc", [GOOGLE, NUMPY, REST], ids=["google", "numpy", "rest"])
def test_docstring_descriptions_land_in_the_schema(doc):
    def forecast(city: str, days: int = 1) -> str:
        return city

    forecast.__doc__ = doc
    t = FunctionTool(forecast)
    assert t.description == "Get the weather forecast.\n\nUses the national service."
    properties = t.parameters["properties"]
    assert properties["city"]["description"] == 'The city name, for example "Oslo".'
    assert properties["days"]["description"] == "How many days to forecast."


def test_undocumented_parameter_has_no_description():
    @tool
    def f(a: int, b: int) -> None:
        """F.

        Args:
            a: the a.
        """

    assert "description" not in f.parameters["properties"]["b"]
    assert f.parameters["properties"]["a"]["description"] == "the a."


def test_description_override_keeps_param_descriptions():
    @tool(description="Custom description.")
    def f(a: int) -> None:
        """Original.

        Args:
            a: the a.
        """

    assert f.description == "Custom description."
    assert f.openai_schema()["function"]["description"] == "Custom description."
    assert f.parameters["properties"]["a"]["description"] == "the a."
