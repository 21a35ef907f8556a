/*
 * Parley chat widget. Served by the API at /sdk/widget.js; no build step, no dependencies.
 *
 *   <script src="https://api.example.com/sdk/widget.js" async
 *           data-public-key="pk_…" data-project-id="proj_…"
 *           data-api-base="https://api.example.com"></script>
 *
 * data-api-base defaults to the origin the script came from; data-user-id (optional) names the end
 * user, else the API gives an anonymous id. Flow: GET /api/v1/sdk/config/{projectId} (X-API-Key),
 * POST /api/v1/sdk/init (X-Public-Key) when the visitor opens the chat, then POST /api/v1/chat/stream
 * (X-SDK-Token, Server-Sent Events read through fetch). The UI lives in an open shadow root of
 * <div id="parley-widget">, so the host page's styles do not reach it.
 */
(() => {
  const script =
    document.currentScript || document.querySelector('script[data-public-key][src*="/sdk/widget.js"]');
  if (!script || window.__parleyWidgetLoaded) return;
  window.__parleyWidgetLoaded = true;

  const publicKey = script.getAttribute('data-public-key') || '';
  const projectId = script.getAttribute('data-project-id') || '';
  const fixedUserId = script.getAttribute('data-user-id') || undefined;
  const apiBase = (script.getAttribute('data-api-base') || new URL(script.src, location.href).origin).replace(
    /\/+$/,
    '',
  );

  const CSS = `
:host { all: initial; }
.root { --accent: var(--parley-primary-color, #1f5fbf); --bg: var(--parley-background-color, #fff);
  --fg: var(--parley-text-color, #1b1b1f); --radius: var(--parley-border-radius, 12px);
  font-family: var(--parley-font-family, system-ui, sans-serif); font-size: var(--parley-font-size, 15px);
  position: fixed; z-index: 2147483000; display: flex; flex-direction: column; gap: 10px; color: var(--fg); }
.bottom-right { right: 20px; bottom: 20px; align-items: flex-end; flex-direction: column-reverse; }
.bottom-left { left: 20px; bottom: 20px; align-items: flex-start; flex-direction: column-reverse; }
.top-right { right: 20px; top: 20px; align-items: flex-end; }
.top-left { left: 20px; top: 20px; align-items: flex-start; }
.launcher { width: 56px; height: 56px; border-radius: 50%; border: 0; cursor: pointer; background: var(--accent);
  color: #fff; display: grid; place-items: center; box-shadow: 0 4px 14px rgba(0,0,0,.25); }
.launcher:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
.panel { width: min(360px, calc(100vw - 40px)); height: min(480px, calc(100vh - 110px)); background: var(--bg);
  border-radius: var(--radius); box-shadow: 0 8px 30px rgba(0,0,0,.25); display: flex; flex-direction: column;
  overflow: hidden; }
.panel[hidden] { display: none; }
header { display: flex; align-items: center; justify-content: space-between; padding: 10px 14px;
  background: var(--accent); color: #fff; }
header h2 { font-size: 1em; margin: 0; }
header button { background: transparent; border: 0; color: #fff; font-size: 20px; cursor: pointer; }
.log { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
.msg { max-width: 85%; padding: 8px 11px; border-radius: 10px; white-space: pre-wrap; overflow-wrap: anywhere;
  line-height: 1.4; }
.assistant { align-self: flex-start; background: #eef1f6; }
.user { align-self: flex-end; background: var(--accent); color: #fff; }
.notice { align-self: stretch; background: #fdecea; color: #8a1c13; }
.typing { align-self: flex-start; color: #555; font-style: italic; }
form { display: flex; gap: 6px; padding: 10px; border-top: 1px solid #e3e3e8; }
input { flex: 1; padding: 8px 10px; border: 1px solid #b8b8c0; border-radius: 8px; font: inherit; color: inherit; }
form button { padding: 8px 12px; border: 0; border-radius: 8px; background: var(--accent); color: #fff;
  font: inherit; cursor: pointer; }
button:disabled, input:disabled { opacity: .55; cursor: not-allowed; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

  /** Creates an element with attributes and children (strings become text nodes: never HTML). */
  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === false || value === undefined) continue;
      node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  const host = el('div', { id: 'parley-widget', 'data-state': 'loading' });
  const shadow = host.attachShadow({ mode: 'open' });
  const launcher = el('button', {
    type: 'button',
    class: 'launcher',
    // A disclosure button: its name stays, aria-expanded says whether the chat is open.
    'aria-label': 'Chat',
    'aria-expanded': 'false',
    'aria-controls': 'parley-panel',
  });
  // A speech-bubble icon drawn as SVG (emoji fonts are not everywhere), built without innerHTML so that
  // pages enforcing Trusted Types can host the widget.
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', '26');
  svg.setAttribute('height', '26');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const bubble = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  bubble.setAttribute('d', 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z');
  bubble.setAttribute('fill', 'currentColor');
  svg.append(bubble);
  launcher.append(svg);
  const title = el('h2', { id: 'parley-title' }, ['Chat']);
  const close = el('button', { type: 'button', 'aria-label': 'Close chat' }, ['×']);
  const log = el('div', {
    class: 'log',
    role: 'log',
    'aria-live': 'polite',
    'aria-relevant': 'additions text',
    'aria-label': 'Conversation',
  });
  const input = el('input', {
    id: 'parley-input',
    type: 'text',
    autocomplete: 'off',
    maxlength: '32000',
    disabled: true,
  });
  const send = el('button', { type: 'submit', disabled: true }, ['Send']);
  const form = el('form', {}, [
    el('label', { for: 'parley-input', class: 'sr-only' }, ['Message']),
    input,
    send,
  ]);
  const panel = el(
    'section',
    { id: 'parley-panel', class: 'panel', role: 'dialog', 'aria-labelledby': 'parley-title', hidden: true },
    [el('header', {}, [title, close]), log, form],
  );
  const root = el('div', { class: 'root bottom-right' }, [launcher, panel]);
  shadow.append(el('style', {}, [CSS]), root);

  let state = 'loading'; // loading | ready | unavailable
  let unavailableText = 'Chat is unavailable on this site.';
  let welcomeMessage = '';
  let welcomed = false;
  let token = null; // { token, expiresAt (ms), sessionUserId }
  let sessionId = null;
  let busy = false;

  function setState(next) {
    state = next;
    host.setAttribute('data-state', next);
    const ready = next === 'ready';
    // The input stays enabled while a reply comes (disabling it would drop the keyboard focus); only
    // sending waits.
    input.disabled = !ready;
    send.disabled = !ready || busy;
  }

  function addMessage(kind, text) {
    const node = el('div', { class: `msg ${kind}` });
    node.textContent = text;
    log.append(node);
    log.scrollTop = log.scrollHeight;
    return node;
  }

  function openPanel() {
    panel.hidden = false;
    launcher.setAttribute('aria-expanded', 'true');
    if (state === 'unavailable' && !log.querySelector('.notice')) addMessage('notice', unavailableText);
    if (state === 'ready' && !welcomed && welcomeMessage) {
      welcomed = true;
      addMessage('assistant', welcomeMessage);
    }
    (state === 'ready' ? input : close).focus();
  }

  function closePanel() {
    panel.hidden = true;
    launcher.setAttribute('aria-expanded', 'false');
    launcher.focus();
  }

  launcher.addEventListener('click', () => (panel.hidden ? openPanel() : closePanel()));
  close.addEventListener('click', closePanel);
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closePanel();
  });

  /** The error code of a JSON error answer ({ error: { code } } or { code }), else the status. */
  async function errorCode(res) {
    try {
      const body = await res.json();
      return (body && (body.error?.code || body.code)) || `HTTP_${res.status}`;
    } catch {
      return `HTTP_${res.status}`;
    }
  }

  function refuse(reason, detail) {
    unavailableText =
      reason === 'ORIGIN_NOT_ALLOWED' || reason === 'network'
        ? 'Chat is unavailable on this site: it is not allowed to use this chat.'
        : 'Chat is unavailable right now.';
    // For the site's developer: a refused origin shows up in the browser as a CORS failure.
    console.warn('[parley] widget unavailable:', reason, detail || '');
    setState('unavailable');
    if (!panel.hidden && !log.querySelector('.notice')) addMessage('notice', unavailableText);
  }

  function applyConfig(body) {
    const config = body.config || {};
    const position = ['bottom-right', 'bottom-left', 'top-right', 'top-left'].includes(config.position)
      ? config.position
      : 'bottom-right';
    root.className = `root ${position}`;
    // Theme entries become CSS custom properties: primaryColor → --parley-primary-color.
    for (const [name, value] of Object.entries(config.theme || {})) {
      if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(name)) continue;
      const prop = `--parley-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).replace(/_/g, '-')}`;
      const css = typeof value === 'number' && /radius|size/i.test(name) ? `${value}px` : String(value);
      root.style.setProperty(prop, css);
    }
    welcomeMessage = config.welcomeMessage || '';
    input.setAttribute('placeholder', config.placeholderText || '');
    if (config.chatEnabled === false) return refuse('CHAT_DISABLED');
    setState('ready');
  }

  async function loadConfig() {
    if (!publicKey || !projectId)
      return refuse('MISCONFIGURED', 'data-public-key and data-project-id are required');
    let res;
    try {
      res = await fetch(`${apiBase}/api/v1/sdk/config/${encodeURIComponent(projectId)}`, {
        headers: { 'X-API-Key': publicKey },
        credentials: 'omit',
      });
    } catch (err) {
      return refuse('network', err);
    }
    if (!res.ok) return refuse(await errorCode(res));
    applyConfig(await res.json());
  }

  /** An SDK session token valid for at least 30 more seconds, for the same end user as before. */
  async function sdkToken(force) {
    if (!force && token && token.expiresAt - Date.now() > 30_000) return token.token;
    const userId = fixedUserId || token?.sessionUserId;
    const res = await fetch(`${apiBase}/api/v1/sdk/init`, {
      method: 'POST',
      headers: { 'X-Public-Key': publicKey, 'Content-Type': 'application/json' },
      credentials: 'omit',
      body: JSON.stringify(userId ? { projectId, userId } : { projectId }),
    });
    if (!res.ok) throw new Error(await errorCode(res));
    const body = await res.json();
    token = { token: body.token, expiresAt: Date.parse(body.expiresAt), sessionUserId: body.sessionUserId };
    return token.token;
  }

  /** Reads a text/event-stream body, calling onEvent(name, data) per event. */
  async function readEvents(res, onEvent) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
      const blocks = buffer.split(/\r?\n\r?\n/);
      buffer = done ? '' : blocks.pop();
      for (const block of blocks) {
        let name = 'message';
        const data = [];
        for (const line of block.split(/\r?\n/)) {
          if (line.startsWith('event:')) name = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length > 0) onEvent(name, JSON.parse(data.join('\n')));
      }
      if (done) return;
    }
  }

  async function streamTurn(text, retried) {
    const res = await fetch(`${apiBase}/api/v1/chat/stream`, {
      method: 'POST',
      headers: {
        'X-SDK-Token': await sdkToken(retried),
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
      },
      credentials: 'omit',
      body: JSON.stringify(sessionId ? { sessionId, message: text } : { projectId, message: text }),
    });
    if (res.status === 401 && !retried) return streamTurn(text, true);
    if (!res.ok) throw new Error(await errorCode(res));

    const typing = addMessage('typing', 'Assistant is typing…');
    let bubble = null;
    let shown = '';
    log.setAttribute('aria-busy', 'true'); // screen readers read the reply once, when complete
    try {
      await readEvents(res, (name, data) => {
        if (name === 'text_delta') {
          if (!bubble) {
            typing.remove();
            bubble = addMessage('assistant', '');
          }
          shown += data.delta;
          bubble.textContent = shown;
          log.scrollTop = log.scrollHeight;
        } else if (name === 'done') {
          if (!bubble) bubble = addMessage('assistant', '');
          bubble.textContent = data.text;
          sessionId = data.sessionId || sessionId;
        } else if (name === 'complete') {
          if (data.ended) sessionId = null; // the agent ended it: the next message starts a new one
        } else if (name === 'error') {
          throw new Error(data.code || 'STREAM_ERROR');
        }
      });
    } finally {
      typing.remove();
      log.removeAttribute('aria-busy');
    }
  }

  const FAILURES = {
    ORIGIN_NOT_ALLOWED: 'This site is not allowed to use this chat.',
    RATE_LIMIT_EXCEEDED: 'Too many messages at once. Please wait a moment.',
    SESSION_ENDED: 'This conversation has ended. Send a message to start a new one.',
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || busy || state !== 'ready') return;
    input.value = '';
    addMessage('user', text);
    busy = true;
    setState(state);
    try {
      await streamTurn(text, false);
    } catch (err) {
      const code = err instanceof Error ? err.message : 'ERROR';
      if (code === 'SESSION_ENDED' || code === 'SESSION_NOT_FOUND') sessionId = null;
      addMessage('notice', FAILURES[code] || 'Sorry, the message could not be sent. Please try again.');
      console.warn('[parley] message failed:', code);
    } finally {
      busy = false;
      setState(state);
      if (!panel.hidden) input.focus();
    }
  });

  const mount = () => {
    document.body.append(host);
    loadConfig();
  };
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount, { once: true });
})();
