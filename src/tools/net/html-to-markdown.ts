/**
 * A web page as markdown the model reads: headings, paragraphs, links, lists, tables and code,
 * without scripts, styles, navigation, sidebars, footers or form controls. Done by mdream, a
 * streaming HTML-to-markdown converter with no DOM: a 1 MB page takes about 50 ms here, where
 * Readability over a DOM took 250 ms before any markdown was written (`bench/web-fetch.bench.ts`).
 *
 * Main content: when the page marks it (`<main>`), only that is kept, with the page's title; a
 * page whose `<main>` yields next to nothing is converted whole instead.
 */
import { TagIdMap, htmlToMarkdown as mdream, type ElementNode, type NodeEvent, type Plugin, type MdreamRuntimeState } from 'mdream';
import { createPlugin } from 'mdream/plugins';

/** Parts of a page that are never its content (scripts and styles mdream drops itself). */
const chromeTags: readonly number[] = [
  TagIdMap.nav,
  TagIdMap.aside,
  TagIdMap.footer,
  TagIdMap.iframe,
  TagIdMap.button,
  TagIdMap.select,
  TagIdMap.textarea,
  TagIdMap.input,
  TagIdMap.svg,
  TagIdMap.noscript,
  TagIdMap.template,
  TagIdMap.dialog,
  TagIdMap.object,
  TagIdMap.embed,
  TagIdMap.canvas,
];

const elementNode = 1;
/** Below this many characters, what `<main>` gave is not taken for the page's content. */
const thinMain = 200;

/**
 * Converts `html`, fetched from `base`, to markdown. Relative links and images are made absolute
 * against `base`; `javascript:` links lose their target and inline (`data:`) images their bytes.
 */
export function htmlToMarkdown(html: string, base: URL): string {
  // A plain test on the text: the converter streams, so it must know before it meets <main>.
  if (/<main[\s>]/i.test(html)) {
    const main = convert(html, base, true);
    if (main.length - leadingTitleLength(main) >= thinMain) return main;
  }
  return convert(html, base, false);
}

function convert(html: string, base: URL, mainOnly: boolean): string {
  return tidy(mdream(html, { plugins: [contentOnly(mainOnly), absoluteLinks(base)] }));
}

/** Skips the page's chrome (and, with `mainOnly`, everything outside `<main>` but the head's title). */
function contentOnly(mainOnly: boolean): Plugin {
  return createPlugin({
    beforeNodeProcess(event: NodeEvent, state: MdreamRuntimeState) {
      const depth = state.depthMap;
      if (!depth) return undefined;
      const tag = event.node.type === elementNode ? (event.node as ElementNode).tagId : undefined;
      for (const id of chromeTags) if (tag === id || depth[id]! > 0) return { skip: true };
      if (mainOnly && tag !== TagIdMap.main && depth[TagIdMap.main] === 0 && tag !== TagIdMap.head && depth[TagIdMap.head] === 0) return { skip: true };
      return undefined;
    },
  });
}

/** Makes link targets and image sources absolute, so the model can fetch them next. */
function absoluteLinks(base: URL): Plugin {
  return createPlugin({
    processAttributes(node: ElementNode) {
      const attributes = node.attributes;
      if (attributes.href !== undefined) attributes.href = resolve(attributes.href, base, 'href');
      if (attributes.src !== undefined) attributes.src = resolve(attributes.src, base, 'src');
    },
  });
}

function resolve(value: string, base: URL, kind: 'href' | 'src'): string {
  const trimmed = decodeAttribute(value).trim();
  if (trimmed.startsWith('#')) return trimmed;
  if (/^(javascript|vbscript):/i.test(trimmed)) return '';
  // An inline image can be megabytes of base64: the model gets that there was one, not its bytes.
  if (kind === 'src' && /^data:/i.test(trimmed)) return 'data:';
  try {
    return new URL(trimmed, base).href;
  } catch {
    return trimmed;
  }
}

const namedEntities: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Character references in an attribute (mdream leaves them as written): `?a=1&amp;b=2` is `?a=1&b=2`. */
function decodeAttribute(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== '#') return namedEntities[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** The length of a first line that is only the page's title (the `<title>`), with its blank line. */
function leadingTitleLength(markdown: string): number {
  const end = markdown.indexOf('\n');
  return end < 0 ? markdown.length : end;
}

/** At most one blank line between blocks, none at either end. */
function tidy(markdown: string): string {
  return markdown.replace(/\n{3,}/g, '\n\n').trim();
}
