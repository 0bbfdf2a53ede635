"""Structured output: answers validated into a pydantic model or against a JSON schema.

An answer that does not validate goes back to the model with the errors, up to
``Agent(output_retries=2)`` times; then OutputValidationError carries the last
raw answer. Here the scripted model gets the first answer wrong on purpose.
"""

from __future__ import annotations

from example_llm import example_llm
from pydantic import BaseModel, Field

from praisonlike import Agent
from praisonlike.errors import OutputValidationError
from praisonlike.testing import Response, Text


class City(BaseModel):
    name: str
    country: str
    population_millions: float = Field(ge=0)


EVENT_SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
    "required": ["title", "year"],
}

SCRIPT: list[Response] = [
    Text('{"name": "Paris", "country": "France"}'),
    Text('```json\n{"name": "Paris", "country": "France", "population_millions": 2.1}\n```'),
    Text('{"title": "First Moon landing", "year": 1969}'),
]


def main() -> None:
    with example_llm(SCRIPT) as llm:
        agent = Agent(instructions="You answer with facts.", llm=llm)
        try:
            city = agent.chat("Describe the capital of France.", output_pydantic=City)
            assert isinstance(city, City)
            print(f"City: {city.name}, {city.country}, {city.population_millions}M people")
            result = agent.last_result
            assert result is not None
            print(f"validated after {result.iterations} model rounds")
            event = agent.chat("Name a famous event of 1969.", output_json=EVENT_SCHEMA)
            print(f"Event: {event['title']} ({event['year']})")
        except OutputValidationError as exc:
            print(f"the model's answer never validated: {exc}\nlast answer: {exc.raw_output!r}")


if __name__ == "__main__":
    main()
