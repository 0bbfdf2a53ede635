"""The chat page at ``GET /`` in a real browser: headless Debian Chromium driven by Playwright.

The agent's server runs for real (Uvicorn on 127.0.0.1, port 0) against a
LocalLLMServer. Skipped, with the reason, when Chromium or Playwright is not
installed (``make browser`` and ``pip install -e '.[dev]'``); CI has both.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from praisonlike import Agent, ExecutionConfig
from praisonlike.testing import Call, Fault, LocalLLMServer, Text, ToolCalls

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (make browser: apt-get install chromium)"
)
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[dev]')"
)
pytest.importorskip(
    "uvicorn", reason="the serve extra is not installed (pip install -e '.[serve]')"
)

from serve_support import Running, serving  # noqa: E402

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MODEL = "gpt-4o-mini"
"""LiteLLM knows its price, so the page has a cost to show."""
ANSWER = "Yes: it is sunny in Paris, 26 degrees and a light breeze."
WAIT_MS = 20_000


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"{city}: sunny, 26c"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        yield launched
        launched.close()


@contextmanager
def served_agent(server: LocalLLMServer, **options: Any) -> Iterator[Running]:
    agent = Agent(
        instructions="You report the weather.",
        llm=server.llm_config(MODEL),
        tools=[get_weather],
        **options,
    )
    with serving(agent.to_asgi(ping_interval=1.0)) as running:
        yield running


@contextmanager
def chat_page(browser: Any, app: Running) -> Iterator[Any]:
    """The page in a fresh browser context (empty localStorage); fails on any page error."""
    context = browser.new_context(viewport={"width": 1000, "height": 760})
    errors: list[str] = []
    try:
        opened = context.new_page()
        opened.on("pageerror", lambda error: errors.append(str(error)))
        opened.set_default_timeout(WAIT_MS)
        opened.goto(app.url + "/")
        yield opened
    finally:
        context.close()
    assert errors == [], f"the page raised: {errors}"


@pytest.fixture
def app(server: LocalLLMServer) -> Iterator[Running]:
    with served_agent(server) as running:
        yield running


@pytest.fixture
def page(browser: Any, app: Running) -> Iterator[Any]:
    with chat_page(browser, app) as opened:
        yield opened


def send(page: Any, prompt: str) -> None:
    page.locator("#prompt").fill(prompt)
    page.locator("#prompt").press("Enter")


def turn(page: Any, index: int) -> Any:
    return page.locator(".turn").nth(index)


def wait_for_partial_text(page: Any, index: int, full: str) -> str:
    """Waits until turn ``index`` shows part of ``full`` and has not finished; returns that part."""
    handle = page.wait_for_function(
        """([index, full]) => {
            const turn = document.querySelectorAll(".turn")[index];
            if (!turn || turn.querySelector(".meta")) return null;
            const shown = Array.from(turn.querySelectorAll(".text"), (n) => n.textContent).join("");
            return shown && shown.length < full.length ? shown : null;
        }""",
        arg=[index, full],
        polling=20,
    )
    return str(handle.json_value())


def test_the_answer_streams_in_and_the_tool_call_shows_its_arguments_and_result(
    page: Any, server: LocalLLMServer
) -> None:
    expect = playwright_api.expect
    server.add(
        ToolCalls([Call("get_weather", {"city": "Paris"})]),
        Text(ANSWER, chunk_size=6, chunk_delay=0.25),
    )

    send(page, "Is it sunny in Paris?")

    card = turn(page, 0).locator(".tool")
    expect(card.locator(".name")).to_have_text("get_weather")
    expect(card.locator(".args")).to_contain_text('"city": "Paris"')
    expect(card.locator(".result")).to_have_text("Paris: sunny, 26c")
    partial = wait_for_partial_text(page, 0, ANSWER)
    assert ANSWER.startswith(partial)

    expect(turn(page, 0).locator(".meta .reason")).to_have_text("completed")
    expect(turn(page, 0).locator(".text")).to_have_text(ANSWER)
    prompt_tokens, completion_tokens = server.tokens_served
    expect(turn(page, 0).locator(".meta .tokens")).to_have_text(
        f"{prompt_tokens} in \u00b7 {completion_tokens} out \u00b7 "
        f"{prompt_tokens + completion_tokens} tokens"
    )
    expect(turn(page, 0).locator(".meta .cost")).to_have_text(re.compile(r"^\$0\.\d+$"))
    expect(page.locator("#prompt")).to_be_focused()


def test_shift_enter_makes_a_new_line_and_sends_nothing(page: Any, server: LocalLLMServer) -> None:
    page.locator("#prompt").fill("first line")
    page.locator("#prompt").press("Shift+Enter")
    page.locator("#prompt").press_sequentially("second line")

    playwright_api.expect(page.locator("#prompt")).to_have_value("first line\nsecond line")
    assert page.locator(".turn").count() == 0
    assert server.request_count == 0


def test_stop_ends_a_slow_turn_and_the_run_is_stored_as_cancelled(
    page: Any, server: LocalLLMServer, app: Running
) -> None:
    expect = playwright_api.expect
    slow = "This answer takes a long time to write. " * 40
    server.add(Text(slow, chunk_size=8, chunk_delay=0.2))

    send(page, "Write me something long.")
    wait_for_partial_text(page, 0, slow)
    page.locator("#stop").click()

    expect(turn(page, 0).locator(".meta .reason")).to_have_text("cancelled")
    expect(page.locator("#status")).to_have_text("Stopped.")
    expect(page.locator("#send")).to_be_visible()
    shown = turn(page, 0).locator(".text").inner_text()
    assert len(shown) < len(slow)
    session = page.evaluate("() => localStorage.getItem('praisonlike.session')")
    with app.client() as client:
        stored = client.get(f"/v1/sessions/{session}/messages").json()["turns"]
    assert [(t["query"], t["status"]) for t in stored] == [
        ("Write me something long.", "cancelled")
    ]


def test_a_reload_shows_the_sessions_earlier_turns(page: Any, server: LocalLLMServer) -> None:
    expect = playwright_api.expect
    server.add(
        ToolCalls([Call("get_weather", {"city": "Paris"})]),
        Text(ANSWER),
        Text("Tomorrow looks the same."),
    )
    send(page, "Is it sunny in Paris?")
    expect(turn(page, 0).locator(".meta .reason")).to_have_text("completed")
    send(page, "And tomorrow?")
    expect(turn(page, 1).locator(".meta .reason")).to_have_text("completed")
    live_tokens = turn(page, 0).locator(".meta .tokens").inner_text()

    page.reload()

    expect(page.locator(".turn")).to_have_count(2)
    expect(turn(page, 0).locator(".msg.user")).to_have_text("Is it sunny in Paris?")
    expect(turn(page, 0).locator(".tool .name")).to_have_text("get_weather")
    expect(turn(page, 0).locator(".tool .result")).to_have_text("Paris: sunny, 26c")
    expect(turn(page, 0).locator(".text").last).to_have_text(ANSWER)
    expect(turn(page, 0).locator(".meta .tokens")).to_have_text(live_tokens)
    expect(turn(page, 1).locator(".msg.user")).to_have_text("And tomorrow?")
    expect(turn(page, 1).locator(".text")).to_have_text("Tomorrow looks the same.")
    assert server.request_count == 3


def test_retries_and_fallbacks_show_as_they_happen(browser: Any, server: LocalLLMServer) -> None:
    expect = playwright_api.expect
    server.add(Fault.unavailable(), Fault.unavailable(), Text(ANSWER))
    options = {
        "fallback_models": ["openai/gpt-4o"],
        "execution": ExecutionConfig(max_retries=1, retry_base=0.01),
    }
    with served_agent(server, **options) as app, chat_page(browser, app) as page:
        send(page, "Is it sunny in Paris?")

        answer = turn(page, 0)
        expect(answer.locator(".meta .reason")).to_have_text("completed")
        notices = answer.locator(".notice")
        expect(notices).to_have_count(2)
        expect(notices.nth(0)).to_contain_text("Retrying")
        expect(notices.nth(0)).to_contain_text("service_unavailable")
        expect(notices.nth(1)).to_have_text(
            f"Falling back from openai/{MODEL} to openai/gpt-4o: service_unavailable"
        )
        expect(answer.locator(".text")).to_have_text(ANSWER)
        expect(answer.locator(".meta .model")).to_have_text("openai/gpt-4o")


def test_model_output_is_shown_as_text_never_as_html(page: Any, server: LocalLLMServer) -> None:
    expect = playwright_api.expect
    markup = '<img src="x" onerror="window.injected = 1"><b>bold</b>'
    server.add(ToolCalls([Call("get_weather", {"city": markup})]), Text(markup))

    send(page, "Weather?")

    answer = turn(page, 0)
    expect(answer.locator(".meta .reason")).to_have_text("completed")
    expect(answer.locator(".text")).to_have_text(markup)
    expect(answer.locator(".tool .result")).to_have_text(f"{markup}: sunny, 26c")
    assert answer.locator("img, b").count() == 0
    assert page.evaluate("() => window.injected") is None
