"""Serving an agent over HTTP: an SSE run, the OpenAI-compatible endpoint, the stored session.

``agent.to_asgi()`` is a Starlette app (``pip install 'praisonlike[serve]'``).
In production run it with any ASGI server, e.g. put ``app = agent.to_asgi(...)``
in ``myapp.py`` and run ``uvicorn myapp:app``, or ``praisonlike serve
myapp:agent``. Here the example starts Uvicorn on a free port of 127.0.0.1 in a
thread and is its own client.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import uvicorn
from example_llm import example_llm

from praisonlike import Agent
from praisonlike.testing import Call, Response, Text, ToolCalls


def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: City name.
    """
    return f"{city}: sunny, 26c"


SCRIPT: list[Response] = [
    ToolCalls([Call("get_weather", {"city": "Paris"})]),
    Text("It is sunny in Paris, 26c.", chunk_size=6),
    Text("Yes, it is warm: 26c."),
]


def events(response: httpx.Response) -> Iterator[tuple[str, dict[str, Any]]]:
    """(event, data) of each SSE message; what any front end parses."""
    name, data = "", ""
    for line in response.iter_lines():
        if line.startswith("event:"):
            name = line.partition(":")[2].strip()
        elif line.startswith("data:"):
            data = line.partition(":")[2].strip()
        elif not line and name:
            yield name, json.loads(data)
            name, data = "", ""


def main() -> None:
    with example_llm(SCRIPT) as llm:
        agent = Agent(instructions="You report the weather.", llm=llm, tools=[get_weather])
        app = agent.to_asgi(tokens={"secret-token-of-ada": "ada"})
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.01)
        url = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
        headers = {"Authorization": "Bearer secret-token-of-ada"}

        print("-- POST /v1/runs: the run as server-sent events")
        body = {"input": "Is it sunny in Paris?", "session_id": "ada-weather"}
        with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
            with client.stream("POST", "/v1/runs", json=body) as response:
                response.raise_for_status()
                for name, data in events(response):
                    if name == "tool_call":
                        print(f"[tool_call] {data['name']}({data['arguments']})")
                    elif name == "tool_result":
                        print(f"[tool_result] {data['result']}")
                    elif name == "text_delta":
                        print(data["text"], end="", flush=True)
                    elif name == "end":
                        print(f"\n[end] {data['termination_reason']}")

            print("-- POST /v1/chat/completions with the official openai client")
            chat = openai.OpenAI(base_url=f"{url}/v1", api_key="secret-token-of-ada")
            completion = chat.chat.completions.create(
                model="weather-agent", messages=[{"role": "user", "content": "Is it warm?"}]
            )
            print(completion.choices[0].message.content)

            print("-- GET /v1/sessions/ada-weather/messages")
            for turn in client.get("/v1/sessions/ada-weather/messages").json()["turns"]:
                steps = [step["event_type"] for step in turn["steps"]]
                print(
                    f"stored: {turn['query']!r} -> {turn['answer']!r} ({turn['status']}, {steps})"
                )

        server.should_exit = True
        thread.join()


if __name__ == "__main__":
    main()
