/**
 * The web chat page's Markdown renderer, as browser JavaScript source (inlined into the page; no
 * external assets). Safe by construction: the text is HTML-escaped first and only fixed tags are
 * added; links keep only `http:`, `https:` and `mailto:` targets. Covers what a chat answer
 * uses: paragraphs, headings, bold, italic, strikethrough, inline and fenced code, links (and
 * bare URLs), lists, quotes, rules. An unclosed code fence (a reply still streaming) renders as
 * code up to the end.
 *
 * Written with `String.raw` so the regular expressions read as they run; the source avoids
 * backticks (`\x60`) and `${`, which the template literal would take.
 */
export const markdownScript = String.raw`
function escapeHtml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function emphasis(html) {
  return html
    .replace(/\*\*(?=\S)([^]*?\S)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\w])__(?=\S)([^]*?\S)__(?!\w)/g, '$1<strong>$2</strong>')
    .replace(/~~(?=\S)([^]*?\S)~~/g, '<del>$1</del>')
    .replace(/\*(?=[^\s*])([^*]*?[^\s*])\*/g, '<em>$1</em>')
    .replace(/(^|[^\w])_(?=[^\s_])([^_]*?[^\s_])_(?!\w)/g, '$1<em>$2</em>');
}

/** Inline Markdown of one line. Code spans and links are set aside before emphasis runs. */
function renderInline(text) {
  const kept = [];
  const keep = (html) => '\u0000' + (kept.push(html) - 1) + '\u0000';
  let out = text.replace(/\u0000/g, '');
  out = out.replace(/(\x60+)(?!\x60)([^]*?[^\x60])\1(?!\x60)/g, (_match, _ticks, code) => keep('<code>' + escapeHtml(code.replace(/^ ([^]*) $/, '$1')) + '</code>'));
  out = escapeHtml(out);
  out = out.replace(/\[([^\]\n]+)\]\(([^()\s]+)\)/g, (match, label, href) =>
    /^(https?:\/\/|mailto:)/i.test(href) ? keep('<a href="' + href + '" target="_blank" rel="noopener noreferrer">' + emphasis(label) + '</a>') : match,
  );
  out = out.replace(/\bhttps?:\/\/[^\s\u0000]+/g, (url) => {
    const trail = /(?:&(?:quot|#39|gt|lt|amp);|[.,;:!?)\]*_~])+$/.exec(url);
    const href = trail ? url.slice(0, trail.index) : url;
    if (!/^https?:\/\/./.test(href)) return url;
    return keep('<a href="' + href + '" target="_blank" rel="noopener noreferrer">' + href + '</a>') + (trail ? trail[0] : '');
  });
  out = emphasis(out);
  while (/\u0000\d+\u0000/.test(out)) out = out.replace(/\u0000(\d+)\u0000/g, (_match, index) => kept[Number(index)]);
  return out;
}

const blockPatterns = {
  fence: /^ {0,3}(\x60{3,}|~{3,})\s*([\w+#.-]*)/,
  heading: /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/,
  rule: /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/,
  item: /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/,
  quote: /^ {0,3}>\s?(.*)$/,
};

function startsBlock(line) {
  return blockPatterns.fence.test(line) || blockPatterns.heading.test(line) || blockPatterns.rule.test(line) || blockPatterns.item.test(line) || blockPatterns.quote.test(line);
}

/** Markdown to safe HTML. */
function renderMarkdown(source) {
  const lines = String(source).replace(/\r\n?/g, '\n').split('\n');
  const html = [];
  const blank = (line) => line.trim() === '';
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (blank(line)) {
      i++;
      continue;
    }
    const fence = blockPatterns.fence.exec(line);
    if (fence) {
      const marker = fence[1];
      const body = [];
      i++;
      while (i < lines.length) {
        const closing = lines[i].trim();
        if (closing.length >= marker.length && closing === marker[0].repeat(closing.length)) break;
        body.push(lines[i]);
        i++;
      }
      i++;
      const language = fence[2] ? ' data-language="' + escapeHtml(fence[2]) + '"' : '';
      html.push('<pre><code' + language + '>' + escapeHtml(body.join('\n')) + '</code></pre>');
      continue;
    }
    const heading = blockPatterns.heading.exec(line);
    if (heading) {
      const level = heading[1].length;
      html.push('<h' + level + '>' + renderInline(heading[2]) + '</h' + level + '>');
      i++;
      continue;
    }
    if (blockPatterns.rule.test(line)) {
      html.push('<hr>');
      i++;
      continue;
    }
    const first = blockPatterns.item.exec(line);
    if (first) {
      const ordered = /\d/.test(first[2]);
      const items = [];
      while (i < lines.length) {
        const item = blockPatterns.item.exec(lines[i]);
        if (item && /\d/.test(item[2]) === ordered) {
          items.push({ depth: item[1].replace(/\t/g, '    ').length >= 2 ? 1 : 0, lines: [item[3]] });
          i++;
        } else if (item) {
          break;
        } else if (!blank(lines[i]) && !startsBlock(lines[i])) {
          items[items.length - 1].lines.push(lines[i].trim());
          i++;
        } else if (blank(lines[i]) && i + 1 < lines.length && blockPatterns.item.test(lines[i + 1])) {
          i++;
        } else {
          break;
        }
      }
      const tag = ordered ? 'ol' : 'ul';
      const start = ordered && parseInt(first[2], 10) !== 1 ? ' start="' + parseInt(first[2], 10) + '"' : '';
      html.push('<' + tag + start + '>' + items.map((item) => '<li' + (item.depth ? ' class="nested"' : '') + '>' + item.lines.map(renderInline).join('<br>') + '</li>').join('') + '</' + tag + '>');
      continue;
    }
    if (blockPatterns.quote.test(line)) {
      const inner = [];
      let quoted;
      while (i < lines.length && (quoted = blockPatterns.quote.exec(lines[i]))) {
        inner.push(quoted[1]);
        i++;
      }
      html.push('<blockquote>' + renderMarkdown(inner.join('\n')) + '</blockquote>');
      continue;
    }
    const paragraph = [];
    while (i < lines.length && !blank(lines[i]) && (paragraph.length === 0 || !startsBlock(lines[i]))) {
      paragraph.push(lines[i]);
      i++;
    }
    html.push('<p>' + paragraph.map(renderInline).join('<br>') + '</p>');
  }
  return html.join('');
}
`;
