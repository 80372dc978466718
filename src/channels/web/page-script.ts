/**
 * The web chat page's behaviour, as browser JavaScript source (inlined into the page after
 * {@link approvalCardScript} and {@link turnStateScript}). It keeps a random client id in
 * localStorage, shows the history, sends messages (retried with the same id, so a retry is never
 * answered twice), listens to the event stream (reconnecting by itself), grows streamed replies
 * in place, renders buttons and approval cards, and shows the bot's files as links (images with
 * a preview). Bot messages come as HTML the server rendered from Markdown and escaped (see
 * `renderWebHtml`); everything else is written as text. Nothing is ever disabled while a reply
 * streams. Behind a login, a 401 means the session ended: the page reloads, which shows the
 * login page.
 *
 * Written with `String.raw` so the source reads as it runs; it avoids backticks and `${`, which
 * the template literal would take.
 */
export const pageScript = String.raw`
const config = JSON.parse(document.getElementById('operator-config').textContent);
const api = config.base + '/web';
const log = document.getElementById('log');
const form = document.getElementById('composer');
const input = document.getElementById('input');
const statusLabel = document.getElementById('status');
const empty = document.getElementById('empty');

function randomId(bytes) {
  const values = new Uint8Array(bytes);
  crypto.getRandomValues(values);
  return Array.from(values, (value) => value.toString(16).padStart(2, '0')).join('');
}

function loadClientId() {
  const key = 'operator.web.clientId';
  try {
    let id = localStorage.getItem(key);
    if (!id || !/^[A-Za-z0-9_-]{16,64}$/.test(id)) {
      id = randomId(16);
      localStorage.setItem(key, id);
    }
    return id;
  } catch {
    return randomId(16);
  }
}

const clientId = loadClientId();
const botMessages = new Map();
const userMessages = new Map();

function keepAtBottom(change) {
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  change();
  if (empty) empty.hidden = log.querySelector('.message') !== null;
  if (atBottom) log.scrollTop = log.scrollHeight;
}

function bubble(role, id) {
  const element = document.createElement('article');
  element.className = 'message ' + role;
  if (id) element.dataset.id = id;
  const body = document.createElement('div');
  body.className = 'body';
  element.appendChild(body);
  log.appendChild(element);
  return element;
}

function showUser(text, id) {
  const element = bubble('user', id);
  element.querySelector('.body').textContent = text;
  if (id) userMessages.set(id, element);
  return element;
}

// The server's HTML, not the model's: it was rendered from Markdown with every text escaped.
function showBot(element, html, buttons, approval) {
  const body = element.querySelector('.body');
  if (approval && typeof approval === 'object') {
    element.classList.add('approval');
    showApprovalCard(body, approval);
  } else {
    body.innerHTML = typeof html === 'string' ? html : '';
  }
  const old = element.querySelector('.buttons');
  if (old) old.remove();
  if (Array.isArray(buttons) && buttons.length > 0) element.appendChild(buttonBox(element, buttons));
}

function formatSize(bytes) {
  if (bytes < 1024) return bytes + ' B';
  if (bytes < 1024 * 1024) return Math.round(bytes / 1024) + ' KB';
  return (bytes / (1024 * 1024)).toFixed(1) + ' MB';
}

// Names go in as text, never as HTML. The link opens in a new tab: a file that is no longer kept
// answers with a page saying so.
function showFile(element, file) {
  const body = element.querySelector('.body');
  if (/^image\/(png|jpeg|gif|webp)$/i.test(file.mediaType)) {
    const image = document.createElement('img');
    image.className = 'preview';
    image.alt = file.name;
    image.loading = 'lazy';
    image.addEventListener('error', () => image.remove());
    image.src = file.url;
    body.appendChild(image);
  }
  const link = document.createElement('a');
  link.href = file.url;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  link.textContent = file.name;
  const size = document.createElement('span');
  size.className = 'size';
  size.textContent = formatSize(file.size);
  const line = document.createElement('div');
  line.className = 'download';
  line.append(link, size);
  body.appendChild(line);
}

function showNotice(text) {
  keepAtBottom(() => {
    const element = document.createElement('div');
    element.className = 'notice';
    element.setAttribute('role', 'status');
    element.textContent = text;
    log.appendChild(element);
  });
}

function buttonBox(message, rows) {
  const box = document.createElement('div');
  box.className = 'buttons';
  for (const row of rows) {
    const line = document.createElement('div');
    line.className = 'row';
    for (const spec of row) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = spec.label;
      button.addEventListener('click', () => press(message, box, button, spec.data));
      line.appendChild(button);
    }
    box.appendChild(line);
  }
  return box;
}

async function press(message, box, button, data) {
  const buttons = box.querySelectorAll('button');
  for (const each of buttons) each.disabled = true;
  button.classList.add('pressed');
  answered(message);
  try {
    await postJson('/actions', { clientId, data, messageId: message.dataset.id, id: randomId(8) });
  } catch (error) {
    for (const each of buttons) each.disabled = false;
    button.classList.remove('pressed');
    showNotice('The button press did not arrive: ' + error.message);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Only behind a login: there a 401 means the session ended, and a reload shows the login page.
function sessionEnded(response) {
  if (!config.login || response.status !== 401) return false;
  location.reload();
  return true;
}

async function checkSession() {
  try {
    sessionEnded(await fetch(api + '/history?clientId=' + encodeURIComponent(clientId)));
  } catch {}
}

const logoutButton = document.getElementById('logout');
if (logoutButton) {
  logoutButton.addEventListener('click', async () => {
    logoutButton.disabled = true;
    try {
      await fetch(api + '/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    } catch {}
    location.reload();
  });
}

/** POSTs JSON; network failures, 429 and 5xx are retried with the same body (same ids). */
async function postJson(path, body) {
  let failure = new Error('not sent');
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) await sleep(300 * 2 ** attempt);
    let response;
    try {
      response = await fetch(api + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    } catch {
      failure = new Error('the server could not be reached');
      continue;
    }
    if (response.ok) return;
    if (sessionEnded(response)) throw new Error('logged out');
    let reason = 'HTTP ' + response.status;
    try {
      reason = (await response.json()).error || reason;
    } catch {}
    failure = new Error(reason);
    if (response.status < 500 && response.status !== 429) break;
  }
  throw failure;
}

async function send(text) {
  const id = randomId(8);
  // Whatever the person says now (/approve, say) is their move: the card no longer holds the indicator.
  answered();
  let element;
  keepAtBottom(() => {
    element = showUser(text, id);
    element.classList.add('pending');
  });
  try {
    await postJson('/messages', { clientId, id, text });
    element.classList.remove('pending');
  } catch (error) {
    element.classList.remove('pending');
    element.classList.add('failed');
    element.title = error.message;
    showNotice('Not sent: ' + error.message);
  }
}

function resizeInput() {
  input.style.height = 'auto';
  input.style.height = Math.min(input.scrollHeight, 200) + 'px';
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = input.value;
  if (text.trim() === '') return;
  input.value = '';
  resizeInput();
  input.focus();
  void send(text);
});
input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    form.requestSubmit();
  }
});
input.addEventListener('input', resizeInput);

// Assistant texts from the history not yet matched by a live message: a reply that was both
// saved in the history and waiting in the buffer is shown once.
const historyTexts = [];
let historyShown = false;
const early = [];

function alreadyInHistory(event) {
  const index = historyTexts.indexOf(event.text);
  if (index === -1) return false;
  historyTexts.splice(index, 1);
  return true;
}

function apply(event, catchingUp) {
  if (event.type === 'typing') return setWorking(true);
  if (event.type === 'typing-stop') return setWorking(false);
  if (event.type === 'notice') {
    // The answer to a button press: its card waits no more.
    if (event.messageId !== undefined) answered(botMessages.get(event.messageId));
    return showNotice(event.text);
  }
  if (event.type === 'user') {
    if (!userMessages.has(event.id)) keepAtBottom(() => showUser(event.text, event.id));
    return;
  }
  if (event.type === 'file') {
    // Only links this server made (a part is shown once, even when it comes again from the buffer).
    if (botMessages.has(event.id) || typeof event.url !== 'string' || !event.url.startsWith(api + '/files/')) return;
    keepAtBottom(() => {
      const element = bubble('bot file', event.id);
      botMessages.set(event.id, element);
      showFile(element, event);
    });
    return;
  }
  if (event.type !== 'message' && event.type !== 'update') return;
  let element = botMessages.get(event.id);
  if (!element && (catchingUp || event.buffered) && alreadyInHistory(event)) return;
  keepAtBottom(() => {
    if (!element) {
      element = bubble('bot', event.id);
      botMessages.set(event.id, element);
    }
    showBot(element, event.html, event.buttons, event.approval);
  });
  if (event.approval && Array.isArray(event.buttons) && event.buttons.length > 0) waitOn(element);
}

function receive(event) {
  if (historyShown) apply(event, false);
  else early.push(event);
}

function setStatus(state, text) {
  statusLabel.dataset.state = state;
  statusLabel.textContent = text;
}

function connect() {
  setStatus('connecting', 'connecting\u2026');
  const source = new EventSource(api + '/events?clientId=' + encodeURIComponent(clientId));
  source.addEventListener('ready', () => {
    setStatus('connected', 'connected');
    // Events missed while away may include the turn's end: nothing runs until the next renewal says so.
    setWorking(false);
  });
  for (const type of ['message', 'update', 'file', 'typing', 'typing-stop', 'notice', 'user']) {
    source.addEventListener(type, (message) => {
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      data.type = type;
      receive(data);
    });
  }
  source.addEventListener('error', () => {
    setStatus('offline', 'reconnecting\u2026');
    setWorking(false);
    // EventSource retries by itself unless the server refused it (then readyState is CLOSED).
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      void checkSession().then(() => setTimeout(connect, 2000));
    }
  });
}

async function loadHistory() {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const response = await fetch(api + '/history?clientId=' + encodeURIComponent(clientId));
      if (response.ok) return (await response.json()).messages || [];
      if (sessionEnded(response)) return [];
    } catch {}
    await sleep(500 * 2 ** attempt);
  }
  showNotice('The earlier conversation could not be loaded.');
  return [];
}

async function start() {
  connect();
  const history = await loadHistory();
  keepAtBottom(() => {
    for (const entry of history) {
      if (entry.role === 'user') showUser(entry.text);
      else {
        showBot(bubble('bot'), entry.html);
        historyTexts.push(entry.text);
      }
    }
  });
  log.scrollTop = log.scrollHeight;
  historyShown = true;
  for (const event of early.splice(0)) apply(event, true);
  input.focus();
}

void start();
`;
