/**
 * The admin console's spending, as browser JavaScript source (the page inlines it between
 * {@link adminCoreScript} and {@link adminViewsScript}, whose helpers it uses): the Spending card
 * at the top of the Usage page (paused or not, with Pause or Resume; what the gateway spent today
 * and this month; the caps in force) and a conversation's spend today on its page. Function
 * declarations only: the views' start may call them before this text is reached.
 *
 * No backticks and no `${` in here: it lives in a template string.
 */
export const adminSpendingScript = String.raw`
/** The gateway's spending and its kill switch; load() draws it (again) while page is current. */
function spendingCard(page) {
  const card = h('div', { class: 'card', id: 'spending' }, h('h3', { text: 'Spending' }), h('p', { class: 'muted', text: 'Loading…' }));
  const answer = h('div', { id: 'spending-answer' });
  const load = async () => {
    const data = await api('spending');
    if (!mine(page)) return;
    const act = (action) => change(answer, 'spending', { action: action }, load);
    const pause = () => {
      if (confirm('Pause every model call? Running turns stop at their next call, and messages wait until you resume.')) act('pause');
    };
    const caps = data.caps.map((cap) =>
      h('tr', {}, h('td', { text: cap.applies }), h('td', { class: 'number', text: money(cap.usd) + ' a ' + cap.period + (cap.default ? ' (default)' : '') })));
    card.replaceChildren(
      h('h3', { text: 'Spending' }),
      h('p', {},
        h('span', { id: 'spending-state', class: 'state ' + (data.paused ? 'paused' : 'active'), text: data.paused ? 'model calls paused' : 'model calls go on' }), ' ',
        data.paused ? button('Resume', () => act('resume'), 'primary') : button('Pause', pause, 'danger')),
      h('p', { id: 'spending-gateway', text: 'The gateway spent ' + money(data.spent.day) + ' today (' + data.day + ') and ' + money(data.spent.month) + ' this month (' + data.month + '), UTC.' }),
      caps.length > 0 ? table('spending-caps', ['Caps in force', 'Cap '], caps) : null,
      data.uncapped.length > 0 ? h('p', { class: 'muted', text: 'No cap: ' + data.uncapped.join(', ') + '.' }) : null,
      h('p', { class: 'muted', text: 'A conversation\'s spend today is on its page; below, the cost of each conversation.' }),
      answer);
  };
  return { card: card, load: load };
}

/** What the conversation spent today against its caps (the answer of GET conversation's spending). */
function conversationSpendingCard(spending) {
  const rows = spending.lines.map((line) =>
    h('tr', {}, h('td', { text: line.what }), h('td', { class: 'number', text: money(line.spent) }), h('td', { class: 'number', text: money(line.cap) })));
  return h('div', { class: 'card', id: 'conversation-spending' },
    h('h3', { text: 'Spending today (' + spending.day + ', UTC)' }),
    rows.length > 0 ? table('conversation-spend', ['Counted for', 'Spent ', 'Cap '], rows) : null,
    spending.uncapped.length > 0 ? h('p', { class: 'muted', text: 'No cap, so not counted here: ' + spending.uncapped.join(', ') + '.' }) : null);
}
`;
