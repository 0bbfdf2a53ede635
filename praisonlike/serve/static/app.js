"use strict";
// The chat page of `praisonlike serve`: one run at a time, streamed from
// POST v1/runs as server-sent events. Model output is only ever set as
// textContent, never parsed as HTML.
(() => {
  const SESSION_KEY = "praisonlike.session";
  const TOKEN_KEY = "praisonlike.token";

  const $ = (id) => document.getElementById(id);
  const transcript = $("transcript");
  const promptBox = $("prompt");
  const sendButton = $("send");
  const stopButton = $("stop");
  const statusLine = $("status");

  let sessionId = localStorage.getItem(SESSION_KEY) || "";
  let running = null;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function url(path) {
    return new URL(path, document.baseURI).toString();
  }

  function headers(accept, withBody) {
    const result = { Accept: accept };
    if (withBody) result["Content-Type"] = "application/json";
    const token = localStorage.getItem(TOKEN_KEY);
    if (token) result.Authorization = `Bearer ${token}`;
    return result;
  }

  function setStatus(text, isError) {
    statusLine.textContent = text || "";
    statusLine.classList.toggle("error", Boolean(isError));
  }

  function useSession(id) {
    sessionId = id || "";
    if (sessionId) localStorage.setItem(SESSION_KEY, sessionId);
    else localStorage.removeItem(SESSION_KEY);
    $("session-label").textContent = sessionId ? `session ${sessionId.slice(0, 12)}` : "";
    $("session-label").title = sessionId;
  }

  function scrollDown() {
    transcript.scrollTop = transcript.scrollHeight;
  }

  function pretty(value) {
    if (typeof value === "string") {
      try {
        return JSON.stringify(JSON.parse(value), null, 2);
      } catch {
        return value;
      }
    }
    return JSON.stringify(value, null, 2);
  }

  function formatCost(cost) {
    if (cost === null || cost === undefined) return "cost unknown";
    if (cost === 0) return "$0";
    return cost < 0.01 ? `$${cost.toFixed(6)}` : `$${cost.toFixed(4)}`;
  }

  async function errorText(response) {
    try {
      const body = await response.json();
      const error = body.error;
      if (typeof error === "string") return error;
      if (error && error.message) return error.message;
      if (body.detail) return String(body.detail);
    } catch {
      // not JSON: fall through to the status line
    }
    return `${response.status} ${response.statusText}`.trim();
  }

  // One turn on screen: the user's prompt, then the assistant's text, tool
  // cards and notices in the order they happened, then the turn's figures.
  class TurnView {
    constructor(prompt) {
      document.getElementById("empty")?.remove();
      this.root = el("section", "turn");
      this.root.append(el("div", "msg user", prompt));
      this.body = el("div", "assistant");
      this.root.append(this.body);
      transcript.append(this.root);
      this.textNode = null;
      this.textIteration = null;
      this.tools = new Map();
      this.usage = { prompt: 0, completion: 0, total: 0, cost: null, requests: 0 };
      scrollDown();
    }

    set streaming(on) {
      this.body.classList.toggle("streaming", on);
    }

    addText(text, iteration) {
      if (!text) return;
      if (this.textNode === null || this.textIteration !== iteration) {
        this.textNode = el("div", "msg text");
        this.textNode.dataset.iteration = String(iteration ?? "");
        this.textIteration = iteration;
        this.body.append(this.textNode);
      }
      this.textNode.textContent += text;
      scrollDown();
    }

    resetText(iteration) {
      for (const node of this.body.querySelectorAll(".text")) {
        if (node.dataset.iteration === String(iteration)) node.remove();
      }
      this.textNode = null;
    }

    block(node) {
      this.body.append(node);
      this.textNode = null;
      scrollDown();
    }

    toolCall(id, name, args) {
      const card = el("details", "tool");
      card.dataset.callId = id;
      const summary = el("summary");
      summary.append(el("span", "name", name), el("span", "state", "running\u2026"));
      card.append(summary, el("div", "label", "arguments"), el("pre", "args", pretty(args)));
      card.open = true;
      this.tools.set(id, card);
      this.block(card);
      return card;
    }

    toolResult(id, name, result, isError, latency) {
      const card = this.tools.get(id) || this.toolCall(id, name, "");
      const state = card.querySelector(".state");
      const timing = typeof latency === "number" ? ` in ${(latency * 1000).toFixed(0)} ms` : "";
      state.textContent = isError ? `failed${timing}` : `done${timing}`;
      state.classList.add("done");
      card.classList.toggle("error", Boolean(isError));
      card.append(el("div", "label", isError ? "error" : "result"), el("pre", "result", result));
      scrollDown();
    }

    notice(text, kind) {
      this.block(el("div", `notice ${kind || ""}`.trim(), text));
    }

    countUsage(usage) {
      if (!usage) return;
      this.usage.requests += usage.requests || 0;
      this.usage.prompt += usage.prompt_tokens || 0;
      this.usage.completion += usage.completion_tokens || 0;
      this.usage.total += usage.total_tokens || 0;
      if (usage.cost !== null && usage.cost !== undefined) {
        this.usage.cost = (this.usage.cost || 0) + usage.cost;
      }
    }

    // figures: {prompt, completion, cost, latency, model}; the reason labels the turn.
    finish(reason, figures) {
      this.streaming = false;
      if (this.root.querySelector(".meta")) return;
      const f = figures || this.usage;
      const meta = el("div", "meta");
      meta.append(el("span", `reason ${reason}`, reason));
      const total = (f.prompt || 0) + (f.completion || 0);
      meta.append(el("span", "tokens", `${f.prompt || 0} in \u00b7 ${f.completion || 0} out \u00b7 ${total} tokens`));
      meta.append(el("span", "cost", formatCost(f.cost)));
      if (typeof f.latency === "number") meta.append(el("span", "latency", `${f.latency.toFixed(2)} s`));
      if (f.model) meta.append(el("span", "model", f.model));
      this.body.append(meta);
      scrollDown();
    }
  }

  function resultFigures(result) {
    if (!result || !result.usage) return null;
    const u = result.usage;
    return {
      prompt: u.prompt_tokens,
      completion: u.completion_tokens,
      cost: u.cost,
      latency: result.latency,
      model: result.model,
    };
  }

  // Server-sent events from a fetch() body: yields {event, id, data}.
  async function* readEvents(response) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message = { event: "message", id: null, data: [] };
        for (const line of block.split("\n")) {
          if (!line || line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon === -1 ? line : line.slice(0, colon);
          let valueText = colon === -1 ? "" : line.slice(colon + 1);
          if (valueText.startsWith(" ")) valueText = valueText.slice(1);
          if (field === "event") message.event = valueText;
          else if (field === "id") message.id = valueText;
          else if (field === "data") message.data.push(valueText);
        }
        if (message.data.length || message.event !== "message") {
          const raw = message.data.join("\n");
          let data = raw;
          try {
            data = raw ? JSON.parse(raw) : {};
          } catch {
            // keep the raw text
          }
          yield { event: message.event, id: message.id, data };
        }
      }
    }
  }

  function describeRetry(data) {
    const wait = typeof data.wait === "number" ? ` in ${data.wait.toFixed(1)} s` : "";
    const why = data.message ? `: ${data.message}` : "";
    return `Retrying ${data.model || ""} (attempt ${data.attempt})${wait} after ${data.error_kind}${why}`;
  }

  // Applies one event to the turn; returns the turn's end reason once known.
  function apply(turn, run, name, data) {
    const type = (data && data.type) || name;
    switch (type) {
      case "session":
        run.id = data.run_id || run.id;
        if (data.session_id && data.session_id !== sessionId) useSession(data.session_id);
        stopButton.disabled = !run.id;
        break;
      case "run_started":
        run.id = run.id || data.run_id;
        stopButton.disabled = !run.id;
        if (data.model) $("agent-name").textContent = data.agent_name ? `${data.agent_name} \u00b7 ${data.model}` : data.model;
        setStatus("Running\u2026");
        break;
      case "text_delta":
        turn.addText(data.text, data.iteration);
        break;
      case "stream_reset":
        turn.resetText(data.iteration);
        break;
      case "llm_response":
        turn.countUsage(data.usage);
        break;
      case "tool_call":
        turn.toolCall(data.call_id, data.name, data.arguments);
        break;
      case "tool_result":
        turn.toolResult(data.call_id, data.name, data.result, data.is_error, data.latency);
        break;
      case "retry":
        turn.notice(describeRetry(data), "warn");
        break;
      case "fallback":
        turn.notice(`Falling back from ${data.from_model} to ${data.to_model}: ${data.reason}`, "warn");
        break;
      case "budget_warning":
        turn.notice(data.message || `Budget: ${data.spent} of ${data.limit} spent`, "warn");
        break;
      case "compaction":
        turn.notice(
          `Context compacted (${data.strategy || data.route}): ${data.tokens_before} \u2192 ${data.tokens_after} tokens`,
          "info",
        );
        break;
      case "steering":
        turn.notice(`Steered: ${data.text}`, "info");
        break;
      case "skill_invoked":
        turn.notice(`Skill ${data.skill}`, "info");
        break;
      case "reflection":
        turn.notice(`Reflection round ${data.round}: ${data.satisfactory ? "satisfied" : "revising"}`, "info");
        break;
      case "error":
        if (data.error_type === "RunCancelled") {
          turn.notice("Stopped.", "info");
          break;
        }
        turn.notice(`${data.error_type || "Error"}: ${data.message || ""}`, data.fatal === false ? "warn" : "error");
        break;
      case "run_finished":
        run.result = data.result || null;
        run.reason = data.termination_reason || (data.result && data.result.termination_reason);
        break;
      case "end":
        run.reason = data.termination_reason || run.reason;
        run.error = data.error || null;
        run.ended = true;
        break;
      default:
        break;
    }
  }

  async function send(prompt) {
    const turn = new TurnView(prompt);
    const run = { id: null, result: null, reason: null, error: null, ended: false };
    running = run;
    turn.streaming = true;
    sendButton.hidden = true;
    stopButton.hidden = false;
    stopButton.disabled = true;
    setStatus("Sending\u2026");
    try {
      const response = await fetch(url("v1/runs"), {
        method: "POST",
        headers: headers("text/event-stream", true),
        body: JSON.stringify(sessionId ? { input: prompt, session_id: sessionId } : { input: prompt }),
      });
      if (!response.ok) {
        const message = await errorText(response);
        turn.notice(message, "error");
        turn.finish("refused", null);
        setStatus(message, true);
        return;
      }
      run.id = response.headers.get("X-Run-Id") || run.id;
      const headerSession = response.headers.get("X-Session-Id");
      if (headerSession && headerSession !== sessionId) useSession(headerSession);
      stopButton.disabled = !run.id;
      for await (const message of readEvents(response)) {
        apply(turn, run, message.event, message.data);
        if (run.ended) break;
      }
      if (!run.ended) turn.notice("The stream ended before the run did.", "error");
      else if (run.error && run.reason !== "cancelled") {
        turn.notice(`${run.error.type}: ${run.error.message}`, "error");
      }
      turn.finish(run.reason || "ended", resultFigures(run.result));
      if (run.reason === "completed") setStatus("");
      else if (run.reason === "cancelled") setStatus("Stopped.");
      else setStatus(`Run ended: ${run.reason || "connection closed"}.`, true);
    } catch (error) {
      turn.notice(`Connection lost: ${error.message}`, "error");
      turn.finish(run.reason || "error", resultFigures(run.result));
      setStatus("Connection lost.", true);
    } finally {
      running = null;
      sendButton.hidden = false;
      stopButton.hidden = true;
      promptBox.focus();
    }
  }

  async function stop() {
    const run = running;
    if (!run || !run.id) return;
    stopButton.disabled = true;
    setStatus("Stopping\u2026");
    try {
      const response = await fetch(url(`v1/runs/${encodeURIComponent(run.id)}/stop`), {
        method: "POST",
        headers: headers("application/json", true),
        body: JSON.stringify({ session_id: sessionId }),
      });
      if (!response.ok) {
        setStatus(`Stop refused: ${await errorText(response)}`, true);
        stopButton.disabled = false;
      }
    } catch (error) {
      setStatus(`Stop failed: ${error.message}`, true);
      stopButton.disabled = false;
    }
  }

  const STATUS_LABEL = { normal: "completed" };

  // Rebuilds one stored turn: its prompt, its steps in order, its answer, its figures.
  function renderStoredTurn(record) {
    const turn = new TurnView(record.query);
    turn.root.classList.add("earlier");
    const answering = record.steps.filter((step) => step.event_type === "llm_response");
    const open = [];
    for (const step of record.steps) {
      switch (step.event_type) {
        case "llm_response":
          if (step !== answering[answering.length - 1]) turn.addText(step.thought || "", `s${step.position}`);
          break;
        case "tool_call": {
          const id = `${record.id}-${step.position}`;
          turn.toolCall(id, step.tool, step.tool_input || {});
          open.push({ id, tool: step.tool });
          break;
        }
        case "tool_result": {
          const index = open.findIndex((call) => call.tool === step.tool);
          const id = index === -1 ? `${record.id}-${step.position}` : open.splice(index, 1)[0].id;
          turn.toolResult(id, step.tool, step.observation || "", false, step.latency);
          break;
        }
        case "retry":
          turn.notice(`Retried: ${step.observation}`, "warn");
          break;
        case "fallback":
          turn.notice(`Fell back: ${step.observation}`, "warn");
          break;
        case "compaction":
          turn.notice(`Context compacted: ${step.observation}`, "info");
          break;
        default:
          break;
      }
    }
    for (const call of open) {
      turn.tools.get(call.id).querySelector(".state").textContent = "no result";
    }
    turn.addText(record.answer, "answer");
    turn.finish(STATUS_LABEL[record.status] || record.status, {
      prompt: record.prompt_tokens,
      completion: record.completion_tokens,
      cost: record.cost,
      latency: record.latency,
      model: record.model,
    });
  }

  async function loadHistory() {
    if (!sessionId) return;
    try {
      const response = await fetch(url(`v1/sessions/${encodeURIComponent(sessionId)}/messages`), {
        headers: headers("application/json", false),
      });
      if (response.status === 404) {
        useSession("");
        return;
      }
      if (!response.ok) {
        setStatus(`Could not load the session: ${await errorText(response)}`, true);
        return;
      }
      const body = await response.json();
      for (const record of body.turns || []) renderStoredTurn(record);
    } catch (error) {
      setStatus(`Could not load the session: ${error.message}`, true);
    }
  }

  function autosize() {
    promptBox.style.height = "auto";
    promptBox.style.height = `${promptBox.scrollHeight}px`;
  }

  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const prompt = promptBox.value.trim();
    if (!prompt || running) return;
    promptBox.value = "";
    autosize();
    send(prompt);
  });

  promptBox.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  });
  promptBox.addEventListener("input", autosize);
  stopButton.addEventListener("click", stop);

  $("new-chat").addEventListener("click", () => {
    if (running) return;
    useSession("");
    transcript.replaceChildren();
    setStatus("New chat: the next message starts a new session.");
    promptBox.focus();
  });

  $("token-button").addEventListener("click", () => {
    const current = localStorage.getItem(TOKEN_KEY) || "";
    const token = window.prompt("Bearer token for this server (empty for none):", current);
    if (token === null) return;
    if (token.trim()) localStorage.setItem(TOKEN_KEY, token.trim());
    else localStorage.removeItem(TOKEN_KEY);
    transcript.replaceChildren();
    loadHistory();
  });

  useSession(sessionId);
  loadHistory();
})();
