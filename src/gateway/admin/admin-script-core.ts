/**
 * The admin console's behaviour, part one, as browser JavaScript source (the page inlines it
 * before {@link adminViewsScript}): building elements (text only, never HTML from data), calling
 * the JSON API with the session's CSRF token, the tabs and the address bar's `#page/argument`, the
 * one live event stream every page listens to, and the conversations pages (list and transcript).
 *
 * No backticks and no `${` in here: it lives in a template string.
 */
export const adminCoreScript = String.raw`
const config = JSON.parse(document.getElementById('admin-config').textContent);
const view = document.getElementById('view');
const tabs = document.getElementById('tabs');
const liveLabel = document.getElementById('live');
const feed = [];
let generation = 0;
let current = {};

function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'onclick') element.addEventListener('click', value);
    else if (name === 'text') element.textContent = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

async function api(path, body) {
  const init = { credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.method = 'POST';
    init.headers['content-type'] = 'application/json';
    init.headers['x-csrf-token'] = config.csrf;
    init.body = JSON.stringify(body);
  }
  const response = await fetch('/admin/api/' + path, init);
  if (response.status === 401) {
    location.href = '/admin/login';
    throw new Error('logged out');
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || ('HTTP ' + response.status));
  return data;
}

function money(value) {
  if (!value) return '$0';
  return '$' + (value < 0.01 ? value.toFixed(4) : value.toFixed(2));
}

function count(value) {
  return Number(value || 0).toLocaleString('en-US');
}

function when(ms) {
  if (!ms) return h('span', { class: 'muted', text: 'never' });
  const seconds = Math.round((Date.now() - ms) / 1000);
  let text;
  if (seconds < 0) {
    const ahead = -seconds;
    text = ahead < 90 ? 'in ' + ahead + ' s' : ahead < 5400 ? 'in ' + Math.round(ahead / 60) + ' min' : new Date(ms).toLocaleString();
  } else {
    text = seconds < 45 ? 'just now' : seconds < 5400 ? Math.round(seconds / 60) + ' min ago' : seconds < 129600 ? Math.round(seconds / 3600) + ' h ago' : new Date(ms).toLocaleString();
  }
  return h('time', { datetime: new Date(ms).toISOString(), title: new Date(ms).toLocaleString(), text: text });
}

function table(id, headings, rows) {
  const head = h('tr', {}, headings.map((heading) => h('th', { class: heading.endsWith(' ') ? 'number' : undefined, text: heading.trim() })));
  return h('div', { class: 'scroll' }, h('table', { id: id }, h('thead', {}, head), h('tbody', {}, rows)));
}

function notice(text, ok) {
  return h('div', { class: ok ? 'notice' : 'notice failed', role: 'status', text: text });
}

function showError(error) {
  if (error && error.message === 'logged out') return;
  view.prepend(notice(String(error && error.message ? error.message : error), false));
}

/** Refreshes with load() at most once a second, for bursts of events. */
function throttled(load) {
  let timer;
  return () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      load().catch(() => {});
    }, 1000);
  };
}

const pages = {};

function route() {
  if (current.stop) current.stop();
  generation++;
  current = { generation: generation };
  const hash = location.hash.slice(1) || 'conversations';
  const cut = hash.indexOf('/');
  const name = cut === -1 ? hash : hash.slice(0, cut);
  const argument = cut === -1 ? undefined : decodeURIComponent(hash.slice(cut + 1));
  const page = pages[name] ? name : 'conversations';
  for (const link of tabs.querySelectorAll('a')) {
    if (link.dataset.page === (page === 'conversation' ? 'conversations' : page === 'run' ? 'runs' : page)) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  view.replaceChildren(h('p', { class: 'muted', text: 'Loading…' }));
  pages[page](argument).catch(showError);
}

function mine(page) {
  return page.generation === generation;
}

function connect() {
  const source = new EventSource('/admin/api/events');
  source.addEventListener('ready', () => {
    liveLabel.textContent = 'live';
    liveLabel.dataset.state = 'connected';
  });
  source.addEventListener('ops', (message) => {
    const record = JSON.parse(message.data);
    feed.unshift(record);
    if (feed.length > 300) feed.length = 300;
    if (!record.replayed && current.onEvent) current.onEvent(record);
    if (current.onFeed) current.onFeed(record);
  });
  source.addEventListener('error', () => {
    liveLabel.textContent = 'reconnecting…';
    liveLabel.dataset.state = 'connecting';
  });
}

pages.conversations = async () => {
  const page = current;
  const search = h('input', { type: 'search', id: 'search', placeholder: 'Search title, platform, profile or key', 'aria-label': 'Search conversations', value: sessionStorage.getItem('admin.search') || '' });
  const summary = h('span', { class: 'muted', id: 'conversation-count' });
  const holder = h('div');
  view.replaceChildren(h('h2', { text: 'Conversations' }), h('div', { class: 'toolbar' }, search, summary), holder);
  const load = async () => {
    const data = await api('conversations?q=' + encodeURIComponent(search.value) + '&limit=200');
    if (!mine(page)) return;
    summary.textContent = data.matched === data.total ? data.total + ' conversations' : data.matched + ' of ' + data.total + ' conversations';
    const rows = data.conversations.map((conversation) =>
      h('tr', { 'data-key': conversation.key },
        h('td', {}, h('a', { href: '#conversation/' + encodeURIComponent(conversation.key), text: conversation.title }), conversation.live ? h('span', { class: 'muted', text: ' · live' }) : null),
        h('td', { text: conversation.platform }),
        h('td', { text: conversation.profile }),
        h('td', {}, when(conversation.lastActivity)),
        h('td', { class: 'number', text: count(conversation.turns) }),
        h('td', { class: 'number', text: count(conversation.tokens) }),
        h('td', { class: 'number', text: money(conversation.costUsd) })));
    holder.replaceChildren(rows.length > 0 ? table('conversations', ['Title', 'Platform', 'Profile', 'Last activity', 'Turns ', 'Tokens ', 'Cost '], rows) : h('p', { class: 'muted', text: search.value ? 'No conversation matches.' : 'No conversation yet: one appears here once someone writes to the bot.' }));
  };
  let typing;
  search.addEventListener('input', () => {
    sessionStorage.setItem('admin.search', search.value);
    clearTimeout(typing);
    typing = setTimeout(() => load().catch(showError), 250);
  });
  const soon = throttled(load);
  page.onEvent = (record) => {
    if (record.type === 'message.accepted' || record.type === 'turn.end' || record.type === 'model.usage') soon();
  };
  // Also without events (a conversation's first message is recorded a moment after it is taken).
  const poll = setInterval(() => {
    if (!document.hidden) load().catch(() => {});
  }, 5000);
  page.stop = () => clearInterval(poll);
  await load();
};

pages.conversation = async (key) => {
  const page = current;
  const data = await api('conversation?key=' + encodeURIComponent(key || ''));
  if (!mine(page)) return;
  const about = data.conversation;
  const parts = [h('p', {}, h('a', { href: '#conversations', text: '← Conversations' }))];
  parts.push(h('h2', { text: about ? about.title : key }));
  parts.push(h('p', { class: 'muted', text: [key, about ? about.platform : '', about ? 'profile ' + about.profile : '', about ? count(about.turns) + ' turns, ' + count(about.tokens) + ' tokens, ' + money(about.costUsd) : ''].filter(Boolean).join(' · ') }));
  if (data.prompt && data.prompt.parts) {
    const largest = Math.max(1, ...data.prompt.parts.map((part) => part.characters));
    const rows = data.prompt.parts.map((part) =>
      h('tr', {},
        h('td', { text: part.label }),
        h('td', { class: 'number', text: count(part.characters) }),
        h('td', { class: 'number', text: '~' + count(part.approxTokens) }),
        h('td', { class: 'hide-narrow', style: undefined }, h('div', { class: 'bar', 'data-width': Math.round((100 * part.characters) / largest) }))));
    const card = h('div', { class: 'card', id: 'prompt-parts' },
      h('h3', { text: 'System prompt: ' + count(data.prompt.characters) + ' characters (profile ' + data.prompt.profile + ')' }),
      table('prompt', ['Part', 'Characters ', 'Tokens ', ''], rows),
      data.prompt.truncations.length > 0 ? h('p', { class: 'error', text: 'Cut: ' + data.prompt.truncations.join('; ') }) : null,
      h('p', { class: 'muted', text: data.prompt.builtFor === 'live conversation' ? 'As built for this conversation now.' : 'As built with the profile\'s tools (the conversation is not in memory).' }));
    parts.push(card);
  } else if (data.prompt && data.prompt.error) {
    parts.push(notice('System prompt: ' + data.prompt.error, false));
  }
  if (data.spending && data.spending.lines) parts.push(conversationSpendingCard(data.spending));
  else if (data.spending && data.spending.error) parts.push(notice('Spending: ' + data.spending.error, false));
  if (data.settings && data.settings.settings) parts.push(settingsCard(key, data.settings));
  else if (data.settings && data.settings.error) parts.push(notice('Settings: ' + data.settings.error, false));
  if (data.memory && data.memory.entries) parts.push(memoryCard(data.memory));
  else if (data.memory && data.memory.error) parts.push(notice('Memory: ' + data.memory.error, false));
  const transcript = h('div', { class: 'transcript', id: 'transcript' });
  if (!data.transcript) transcript.append(h('p', { class: 'muted', text: 'This conversation has no session yet.' }));
  else {
    if (data.transcript.omitted > 0) transcript.append(h('p', { class: 'muted', text: data.transcript.omitted + ' earlier entries not shown.' }));
    if (data.transcript.items.length === 0) transcript.append(h('p', { class: 'muted', text: 'No messages in this session yet.' }));
    for (const item of data.transcript.items) transcript.append(transcriptItem(item));
  }
  parts.push(h('h3', { text: 'Transcript' }), transcript);
  view.replaceChildren(...parts);
  // Widths from data attributes: the page's policy allows no inline style attributes.
  for (const bar of view.querySelectorAll('.bar')) bar.style.width = bar.dataset.width + '%';
};

/** The conversation's own memory: entries with their sources, then the latest changes as a diff. */
function memoryCard(memory) {
  const entries = memory.entries.map((entry) =>
    h('li', { class: entry.held ? 'held' : '', value: entry.number },
      h('span', { text: entry.text }),
      h('div', { class: 'muted', text: (entry.held ? 'held apart · ' : '') + entry.file + ' · ' + entry.source + (entry.at ? ' · ' + new Date(entry.at).toLocaleString() : '') })));
  const changes = memory.changes.map((change) =>
    h('div', { class: 'diff' },
      h('div', { class: 'diff-head', text: new Date(change.at).toLocaleString() + ' · ' + change.file + ' · ' + change.action + (change.undone ? ' (undone)' : '') + ' · ' + change.source }),
      change.before !== undefined ? h('pre', { class: 'diff-del', text: '- ' + change.before }) : null,
      change.after !== undefined ? h('pre', { class: 'diff-add', text: '+ ' + change.after }) : null));
  return h('div', { class: 'card', id: 'memory' },
    h('h3', { text: 'Memory of this conversation' }),
    entries.length > 0 ? h('ol', { id: 'memory-entries' }, entries) : h('p', { class: 'muted', text: 'Nothing kept yet.' }),
    h('h3', { text: 'Latest changes' }),
    changes.length > 0 ? h('div', { id: 'memory-changes' }, changes) : h('p', { class: 'muted', text: 'No changes recorded yet.' }),
    h('p', { class: 'muted', text: 'Changed with /memory in the chat (forget, keep, undo).' }));
}

function transcriptItem(item) {
  const meta = h('div', { class: 'meta' }, new Date(item.at).toLocaleString(), item.model ? ' · ' + item.model : '', item.tokens ? ' · ' + count(item.tokens) + ' tokens' : '');
  if (item.kind === 'user') return h('div', { class: 'turn user' }, h('div', { class: 'text', text: item.text }), meta);
  if (item.kind === 'compaction') return h('div', { class: 'turn compaction' }, h('details', {}, h('summary', { text: 'Earlier conversation summarized (' + count(item.tokensBefore) + ' tokens)' }), h('div', { class: 'text', text: item.text })), meta);
  if (item.kind === 'model') return h('div', { class: 'turn model', text: item.text });
  const calls = item.toolCalls.map((call) =>
    h('details', { class: 'tool-call' },
      h('summary', { text: 'Tool ' + call.name + (call.result ? (call.result.isError ? ' (failed)' : '') : ' (no result)') }),
      call.arguments ? h('pre', { text: call.arguments }) : null,
      call.result ? h('pre', { text: call.result.text }) : null));
  return h('div', { class: 'turn assistant' },
    item.thinking ? h('details', {}, h('summary', { text: 'Reasoning' }), h('div', { class: 'text', text: item.thinking })) : null,
    item.text ? h('div', { class: 'text', text: item.text }) : null,
    calls,
    meta);
}
`;
