/**
 * The web chat page's approval card, as browser JavaScript source (inlined into the page before
 * {@link pageScript}). It draws a {@link WebApprovalCard} the server laid out: the tool's name,
 * why it asks, then the arguments one per line, commands and multi-line values as code, paths as
 * inline code. Everything is written with `textContent`, never as HTML.
 *
 * Same rules as the page's other sources: no backticks, no `${`.
 */
export const approvalCardScript = String.raw`
function approvalValue(line) {
  const value = document.createElement('dd');
  if (line.kind === 'command' || line.kind === 'code') {
    const block = document.createElement('pre');
    block.className = line.kind;
    const code = document.createElement('code');
    code.textContent = line.value;
    block.appendChild(code);
    value.appendChild(block);
  } else if (line.kind === 'path') {
    const code = document.createElement('code');
    code.className = 'path';
    code.textContent = line.value;
    value.appendChild(code);
  } else {
    value.textContent = line.value;
  }
  return value;
}

/** Fills a bot message's body with the card of an approval question. */
function showApprovalCard(body, card) {
  const title = document.createElement('p');
  title.className = 'approval-title';
  const tool = document.createElement('code');
  tool.textContent = card.tool;
  title.append('Approve ', tool, '?');
  body.replaceChildren(title);
  if (card.reason) {
    const reason = document.createElement('p');
    reason.className = 'approval-reason';
    reason.textContent = card.reason;
    body.appendChild(reason);
  }
  const lines = Array.isArray(card.lines) ? card.lines : [];
  if (lines.length > 0) {
    const list = document.createElement('dl');
    list.className = 'approval-args';
    for (const line of lines) {
      const label = document.createElement('dt');
      label.textContent = line.label;
      list.append(label, approvalValue(line));
    }
    body.appendChild(list);
  }
  if (card.omitted > 0) {
    const more = document.createElement('p');
    more.className = 'approval-more';
    more.textContent = '\u2026 and ' + card.omitted + ' more';
    body.appendChild(more);
  }
}
`;
