/**
 * The admin console's behaviour, part two (inlined after {@link adminCoreScript}, whose helpers it
 * uses): the jobs, pipeline runs (each linked to its steps), pairing, profiles, usage (with the Spending card of `admin-script-spending.ts`)
 * and live events pages, and the start. Every change is a POST of the JSON API; its answer is
 * shown as the chat or the command line words it.
 *
 * No backticks and no `${` in here: it lives in a template string.
 */
export const adminViewsScript = String.raw`
/** Runs a change, shows its answer in holder, then reloads the page's data. */
async function change(holder, path, body, reload) {
  for (const button of view.querySelectorAll('button.action')) button.disabled = true;
  try {
    const reply = await api(path, body);
    holder.replaceChildren(notice(reply.text, reply.ok));
  } catch (error) {
    holder.replaceChildren(notice(String(error.message || error), false));
  } finally {
    await reload().catch(showError);
  }
}

function button(label, onclick, kind) {
  return h('button', { type: 'button', class: 'action' + (kind ? ' ' + kind : ''), onclick: onclick, text: label });
}

/** A conversation's settings, changed as an admin's /config there would (see settings-actions.ts). */
function settingsCard(key, data) {
  const now = data.settings;
  const choice = (id, values, selected) => h('select', { id: id }, values.map((value) => h('option', { value: value, selected: value === selected, text: value })));
  const think = choice('settings-think', ['off', 'low', 'medium', 'high'], now.thinking);
  const profile = choice('settings-profile', data.profiles, now.profile);
  const model = h('input', { id: 'settings-model', value: now.model, 'aria-label': 'Model' });
  const tools = data.toolGroups.map((group) => h('label', { class: 'tool-choice' }, h('input', { type: 'checkbox', value: group, checked: now.toolsHere.includes(group) }), ' ' + group));
  const answer = h('div', { id: 'settings-answer' });
  const save = () => {
    const body = { key: key };
    if (think.value !== now.thinking) body.think = think.value;
    if (profile.value !== now.profile) body.profile = profile.value;
    if (model.value.trim() && model.value.trim() !== now.model) body.model = model.value.trim();
    const granted = tools.map((label) => label.firstChild).filter((box) => box.checked).map((box) => box.value);
    if (granted.join(',') !== now.toolsHere.join(',')) body.tools = granted;
    // Read back what is in force now, for the next save to compare with (the notice stays).
    return change(answer, 'settings', body, async () => {
      const fresh = await api('conversation?key=' + encodeURIComponent(key));
      if (fresh.settings && fresh.settings.settings) Object.assign(now, fresh.settings.settings);
      for (const disabled of view.querySelectorAll('button.action')) disabled.disabled = false;
    });
  };
  return h('div', { class: 'card', id: 'settings' },
    h('h3', { text: 'Settings (as /config here)' }),
    h('div', { class: 'toolbar' }, h('label', {}, 'Profile ', profile), h('label', {}, 'Thinking ', think), h('label', {}, 'Model ', model)),
    h('div', { id: 'settings-tools' }, 'Tools granted everyone here: ', tools),
    h('p', {}, button('Save', save, 'primary')),
    answer);
}

pages.jobs = async () => {
  const page = current;
  const answer = h('div', { id: 'job-answer' });
  const holder = h('div');
  view.replaceChildren(h('h2', { text: 'Scheduled jobs' }), answer, holder);
  const load = async () => {
    const data = await api('jobs');
    if (!mine(page)) return;
    const act = (action, job) => change(answer, 'jobs', { action: action, id: job.id }, load);
    const rows = data.jobs.map((job) => {
      const actions = [];
      if (job.state === 'active') actions.push(button('Pause', () => act('pause', job)));
      if (job.state === 'paused') actions.push(button('Resume', () => act('resume', job), 'primary'));
      if (job.state !== 'done') actions.push(button('Run now', () => act('run', job)));
      actions.push(button('Cancel', () => {
        if (confirm('Cancel job ' + (job.name || job.id) + '? It is removed.')) act('rm', job);
      }, 'danger'));
      const last = job.lastStatus
        ? [h('span', { class: 'state ' + job.lastStatus, text: job.lastStatus }), ' ', when(job.lastRunAt), job.lastDelivery ? h('div', { class: 'muted', text: 'answer ' + job.lastDelivery.status + (job.lastDelivery.error ? ': ' + job.lastDelivery.error : '') }) : null, job.lastError ? h('div', { class: 'error', text: job.lastError }) : null]
        : [h('span', { class: 'muted', text: 'not run yet' })];
      return h('tr', { 'data-job': job.id },
        h('td', {}, h('strong', { text: job.name || job.id }), job.name ? h('div', { class: 'muted', text: job.id }) : null, h('div', { class: 'muted', text: job.prompt })),
        h('td', {}, h('span', { class: 'state ' + job.state, text: job.running ? 'running' : job.state }), job.pausedReason ? h('div', { class: 'muted', text: job.pausedReason }) : null),
        h('td', {}, h('div', { text: job.conversation }), h('div', { class: 'muted', text: 'profile ' + job.profile + ', by ' + job.creator })),
        h('td', { text: job.schedule }),
        h('td', {}, job.nextRunAt ? when(job.nextRunAt) : h('span', { class: 'muted', text: '—' })),
        h('td', {}, last),
        h('td', {}, actions));
    });
    holder.replaceChildren(rows.length > 0 ? table('jobs', ['Job', 'State', 'Where', 'Schedule', 'Next run', 'Last run', ''], rows) : h('p', { class: 'muted', text: 'No scheduled jobs. The agent schedules them when asked in a chat; operator schedule add makes one from the command line.' }));
  };
  const soon = throttled(load);
  page.onEvent = (record) => {
    if (record.type === 'job.fired') soon();
  };
  await load();
};

pages.runs = async () => {
  const page = current;
  const data = await api('runs');
  if (!mine(page)) return;
  const rows = data.runs.map((run) => h('tr', { 'data-run': run.id },
    h('td', {}, h('a', { href: run.link, text: run.id }), h('div', { class: 'muted', text: run.graph })),
    h('td', {}, h('span', { class: 'state ' + run.status, text: run.status })),
    h('td', { text: run.goal }),
    h('td', {}, when(Date.parse(run.startedAt))),
    h('td', { text: '$' + run.cost.toFixed(4) })));
  view.replaceChildren(h('h2', { text: 'Pipeline runs' }), rows.length > 0 ? table('runs', ['Run', 'Status', 'Goal', 'Started', 'Cost'], rows) : h('p', { class: 'muted', text: 'No pipeline runs kept. /run in a chat or operator pipeline run starts one; pipelines.keepRuns says how many are kept.' }));
};

pages.run = async (id) => {
  const page = current;
  const data = await api('run?id=' + encodeURIComponent(id || ''));
  if (!mine(page)) return;
  const back = h('p', {}, h('a', { href: '#runs', text: '← Pipeline runs' }));
  if (data.error) return view.replaceChildren(back, notice(data.error, false));
  const run = data.run;
  const steps = data.steps.map((step) => h('div', { class: 'card', 'data-step': step.node },
    h('h3', { text: step.node + ': ' + step.outcome + ', ' + step.attempts + ' attempt' + (step.attempts === 1 ? '' : 's') + ', ' + (step.durationMs / 1000).toFixed(1) + ' s, $' + step.cost.toFixed(4) }),
    step.failureReason || step.notes ? h('p', { class: 'muted', text: step.failureReason || step.notes }) : null,
    step.prompt !== undefined ? h('details', {}, h('summary', { text: 'Prompt' }), h('pre', { text: step.prompt })) : null,
    step.response !== undefined ? h('details', {}, h('summary', { text: 'Response' }), h('pre', { text: step.response })) : null));
  const parts = [back,
    h('h2', { text: 'Run ' + run.id + ' of ' + run.graph + ': ' + run.status }),
    h('p', { text: run.goal || 'no goal' }),
    h('p', { class: 'muted', text: run.provider + ':' + run.model + ' · $' + run.cost.toFixed(4) + ' · ' + data.folder })];
  if (run.error) parts.push(notice(run.error, false));
  view.replaceChildren(...parts, ...steps);
};

function person(who) {
  return who.platform + ':' + who.userId + (who.name ? ' ' + who.name : '') + (who.username ? ' (@' + who.username + ')' : '');
}

function groupLabel(group) {
  return group.platform + ':' + group.kind + ':' + group.id;
}

function groupName(group) {
  return groupLabel(group) + (group.title ? ' "' + group.title + '"' : '');
}

pages.pairing = async () => {
  const page = current;
  const answer = h('div', { id: 'pairing-answer' });
  const holder = h('div');
  view.replaceChildren(h('h2', { text: 'Pairing' }), answer, holder);
  const load = async () => {
    const data = await api('pairing');
    if (!mine(page)) return;
    const act = (body) => change(answer, 'pairing', body, load);
    const pending = data.pending.map((request) =>
      h('tr', { 'data-code': request.code },
        h('td', {}, h('code', { text: request.code })),
        h('td', { text: person(request) }),
        h('td', {}, when(request.createdAt)),
        h('td', {}, when(request.expiresAt)),
        h('td', {}, button('Approve', () => act({ action: 'approve', code: request.code }), 'primary'), button('Deny', () => act({ action: 'deny', code: request.code }), 'danger'))));
    const approved = data.approved.map((paired) =>
      h('tr', { 'data-person': paired.platform + ':' + paired.userId },
        h('td', { text: person(paired) }),
        h('td', {}, when(paired.approvedAt)),
        h('td', {}, button('Revoke', () => {
          if (confirm('Revoke ' + person(paired) + '? Their direct messages are a stranger\'s again.')) act({ action: 'revoke', platform: paired.platform, userId: paired.userId });
        }, 'danger'))));
    const denied = (data.denied || []).map((refused) => h('tr', {}, h('td', { text: person(refused) }), h('td', {}, when(refused.until))));
    const groups = data.groups || { pending: [], approved: [], denied: [] };
    const groupsPending = groups.pending.map((request) =>
      h('tr', { 'data-code': request.code },
        h('td', {}, h('code', { text: request.code })),
        h('td', { text: groupName(request.group) }),
        h('td', { text: request.askedBy ? person(request.askedBy) : '' }),
        h('td', {}, when(request.expiresAt)),
        h('td', {}, button('Approve', () => act({ action: 'approve', code: request.code }), 'primary'), button('Deny', () => act({ action: 'deny', code: request.code }), 'danger'))));
    const groupsApproved = groups.approved.map((approved) =>
      h('tr', { 'data-group': groupLabel(approved.group) },
        h('td', { text: groupName(approved.group) }),
        h('td', { text: approved.movedFrom ? 'moved from ' + approved.movedFrom : approved.addedBy ? 'added by ' + approved.addedBy : 'code ' + (approved.code || '') }),
        h('td', {}, when(approved.approvedAt)),
        h('td', {}, button('Revoke', () => {
          if (confirm('Revoke ' + groupName(approved.group) + '? The bot stops answering there.')) act({ action: 'revoke-group', group: groupLabel(approved.group) });
        }, 'danger'))));
    const groupsDenied = groups.denied.map((refused) => h('tr', {}, h('td', { text: groupName(refused.group) }), h('td', {}, when(refused.until))));
    holder.replaceChildren(
      h('h3', { text: 'Waiting for approval' }),
      pending.length > 0 ? table('pairing-pending', ['Code', 'Who', 'Asked', 'Expires', ''], pending) : h('p', { class: 'muted', text: 'Nobody is waiting. Someone unknown who writes to the bot in direct messages gets a code that shows up here.' }),
      h('h3', { text: 'Approved' }),
      data.owner ? h('p', { text: 'Owner (made by pairing): ' + person(data.owner) }) : null,
      approved.length > 0 ? table('pairing-approved', ['Who', 'Since', ''], approved) : h('p', { class: 'muted', text: 'Nobody approved yet.' }),
      denied.length > 0 ? h('h3', { text: 'Declined' }) : null,
      denied.length > 0 ? table('pairing-denied', ['Who', 'Refused until'], denied) : null,
      h('h3', { text: 'Groups waiting for approval' }),
      groupsPending.length > 0 ? table('pairing-groups-pending', ['Code', 'Group', 'Asked by', 'Expires', ''], groupsPending) : h('p', { class: 'muted', text: 'No group is waiting. A group no admin added the bot to gets a code at its first mention, which shows up here.' }),
      h('h3', { text: 'Groups approved' }),
      groupsApproved.length > 0 ? table('pairing-groups-approved', ['Group', 'How', 'Since', ''], groupsApproved) : h('p', { class: 'muted', text: 'No group approved yet.' }),
      groupsDenied.length > 0 ? h('h3', { text: 'Groups declined' }) : null,
      groupsDenied.length > 0 ? table('pairing-groups-denied', ['Group', 'Refused until'], groupsDenied) : null);
  };
  const soon = throttled(load);
  page.onEvent = (record) => {
    if (record.type === 'pairing.requested') soon();
  };
  await load();
};

pages.profiles = async () => {
  const page = current;
  const holder = h('div');
  view.replaceChildren(h('h2', { text: 'Profiles' }), holder);
  const answers = new Map();
  const load = async () => {
    const data = await api('profiles');
    if (!mine(page)) return;
    holder.replaceChildren(...data.profiles.map((profile) => {
      const answer = answers.get(profile.name) || h('div');
      answers.set(profile.name, answer);
      const report = profile.report;
      const problems = report ? report.problems.map((problem) => h('li', {}, h('code', { text: problem.file + (problem.line ? ':' + problem.line : '') }), ' ', problem.message)) : [];
      return h('section', { class: 'card', 'data-profile': profile.name },
        h('h3', { text: profile.name }),
        h('p', { class: 'muted', text: report ? report.loaded.skills + ' skills, ' + report.loaded.knowledge + ' knowledge files, ' + report.loaded.guardrails + ' guardrails, ' + report.loaded.extensions + ' extensions, ' + report.loaded.rulesFiles + ' rules files; ' + profile.liveConversations + ' conversations in memory' : profile.text }),
        profile.skills.length > 0 ? h('p', { class: 'muted', text: 'Skills: ' + profile.skills.join(', ') }) : null,
        profile.knowledge.length > 0 ? h('p', { class: 'muted', text: 'Knowledge: ' + profile.knowledge.join(', ') }) : null,
        profile.mcp.length > 0 ? mcpServersCard(profile.mcp) : null,
        problems.length > 0 ? h('div', {}, h('strong', { class: 'error', text: problems.length + (problems.length === 1 ? ' problem' : ' problems') }), h('ul', { class: 'problems' }, problems)) : h('p', { class: 'muted', text: 'Everything loaded.' }),
        button('Reload', async () => {
          for (const other of view.querySelectorAll('button.action')) other.disabled = true;
          try {
            const reply = await api('profiles', { action: 'reload', profile: profile.name });
            answer.replaceChildren(h('pre', { class: 'reload-report', text: reply.text }));
          } catch (error) {
            answer.replaceChildren(notice(String(error.message || error), false));
          }
          await load().catch(showError);
        }),
        answer);
    }));
  };
  page.onEvent = (record) => {
    if (record.type === 'reload') load().catch(() => {});
  };
  await load();
};

/** A profile's MCP servers, read only: name, how it runs, state, tools, the last error. */
function mcpServersCard(servers) {
  const rows = servers.map((server) =>
    h('tr', { 'data-mcp': server.name },
      h('td', { text: server.name }),
      h('td', { text: server.transport === 'stdio' ? 'command ' + server.where + ' (sandbox)' : server.where }),
      h('td', { text: server.state + (server.restarts > 0 ? ', ' + server.restarts + ' restarts' : '') + (server.state !== 'ready' && server.lastError ? ': ' + server.lastError : '') }),
      h('td', { text: server.tools.length > 0 ? server.tools.join(', ') : 'none' })));
  return h('div', { class: 'mcp-servers' }, h('h4', { text: 'MCP servers' }), table('mcp-servers', ['Server', 'Runs', 'State', 'Tools'], rows));
}

pages.usage = async () => {
  const page = current;
  const range = h('select', { id: 'usage-days', 'aria-label': 'Days' }, ['7', '30', '90'].map((days) => h('option', { value: days, text: 'last ' + days + ' days' })));
  range.value = sessionStorage.getItem('admin.days') || '30';
  const holder = h('div');
  const spending = spendingCard(page);
  view.replaceChildren(h('h2', { text: 'Usage' }), spending.card, h('div', { class: 'toolbar' }, range, h('span', { class: 'muted', text: 'days in UTC' })), holder);
  const load = async () => {
    const data = await api('usage?days=' + range.value);
    if (!mine(page)) return;
    const total = data.total;
    const charts = h('div', { id: 'usage-charts' });
    // Drawn by the gateway with every text escaped (see usage-chart.ts).
    charts.innerHTML = data.charts.cost + data.charts.tokens;
    const totalsRow = (name, totals) => [h('td', { text: name }), h('td', { class: 'number', text: count(totals.turns) }), h('td', { class: 'number', text: count(totals.tokens) }), h('td', { class: 'number', text: money(totals.costUsd) }), h('td', { class: 'number', text: money(totals.reviewCostUsd) })];
    const headings = ['Turns ', 'Tokens ', 'Cost ', 'Reviews '];
    holder.replaceChildren(
      h('p', { id: 'usage-total', text: data.from + ' to ' + data.to + ': ' + count(total.turns) + ' turns, ' + count(total.tokens) + ' tokens, ' + money(total.costUsd) + ' (memory reviews ' + money(total.reviewCostUsd) + ', ' + count(total.reviewTokens) + ' tokens)' }),
      charts,
      h('h3', { text: 'Per profile' }),
      table('usage-profiles', ['Profile'].concat(headings), data.profiles.map((row) => h('tr', {}, totalsRow(row.profile, row)))),
      h('h3', { text: 'Per conversation' }),
      table('usage-conversations', ['Conversation'].concat(headings), data.conversations.map((row) => h('tr', {}, totalsRow(row.conversation || '(none)', row)))),
      h('h3', { text: 'Per day' }),
      table('usage-days-table', ['Day'].concat(headings), data.days.slice().reverse().map((row) => h('tr', {}, totalsRow(row.day, row)))));
  };
  range.addEventListener('change', () => {
    sessionStorage.setItem('admin.days', range.value);
    load().catch(showError);
  });
  const soon = throttled(load);
  const spendingSoon = throttled(spending.load);
  page.onEvent = (record) => {
    if (record.type === 'model.usage' || record.type === 'turn.end') soon();
    if (record.type === 'budget.spent' || record.type === 'budget.refused' || record.type === 'budget.paused') spendingSoon();
  };
  await Promise.all([load(), spending.load()]);
};

const placeFields = ['type', 'at', 'platform', 'conversation', 'turn', 'replayed'];

function describeEvent(record) {
  const parts = [];
  for (const [name, value] of Object.entries(record)) {
    if (placeFields.includes(name) || value === undefined) continue;
    if (name === 'tokens' && value) parts.push('tokens ' + count(value.input + value.output + value.cacheRead + value.cacheWrite));
    else if (name === 'costUsd') parts.push(money(value));
    else if (name === 'durationMs' || name === 'latenessMs' || name === 'retryAfterMs') parts.push(name.replace(/Ms$/, '') + ' ' + (value / 1000).toFixed(1) + ' s');
    else parts.push(name + ' ' + (typeof value === 'object' ? JSON.stringify(value) : value));
  }
  return parts.join(', ');
}

pages.events = async () => {
  const page = current;
  const filter = h('input', { type: 'search', placeholder: 'Filter by type or conversation', 'aria-label': 'Filter events' });
  const list = h('ol', { class: 'events', id: 'events' });
  view.replaceChildren(h('h2', { text: 'Live events' }), h('div', { class: 'toolbar' }, filter), list);
  const item = (record) => h('li', { class: record.level || '' },
    h('time', { datetime: new Date(record.at).toISOString(), text: new Date(record.at).toLocaleTimeString() }),
    h('span', { class: 'type', text: record.type }),
    record.conversation ? h('a', { href: '#conversation/' + encodeURIComponent(record.conversation), text: record.conversation }) : record.platform ? h('span', { text: record.platform }) : null,
    h('span', { text: describeEvent(record) }));
  const matches = (record) => {
    const needle = filter.value.trim().toLowerCase();
    return needle === '' || record.type.includes(needle) || (record.conversation || '').toLowerCase().includes(needle);
  };
  const render = () => {
    const shown = feed.filter(matches);
    list.replaceChildren(...(shown.length > 0 ? shown.map(item) : [h('li', { class: 'muted', text: 'Nothing yet: events show here as they happen.' })]));
  };
  filter.addEventListener('input', render);
  page.onFeed = () => render();
  render();
};

document.getElementById('logout').addEventListener('click', async () => {
  await fetch('/admin/logout', { method: 'POST', credentials: 'same-origin', headers: { 'x-csrf-token': config.csrf } }).catch(() => {});
  location.href = '/admin/login';
});
window.addEventListener('hashchange', route);
connect();
route();
`;
