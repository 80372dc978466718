/**
 * Markdown with one of each construct a reply commonly has. A formatter's first use runs
 * `marked`'s large rule expressions in V8's regular-expression interpreter, 40-60 ms on this
 * project's test machine whatever the text (later uses take well under a millisecond); an
 * adapter's `warm` formats this once so that the first reply does not pay for it.
 */
export const markdownWarmUpSample = [
  '# A heading',
  '',
  'A paragraph with *emphasis*, **strong**, `code`, ~~struck~~, a [link](https://example.com) and https://example.org.',
  '',
  '- an item',
  '  - a nested one',
  '1. a numbered item',
  '',
  '> a quote',
  '',
  '```ts',
  'const code = 1;',
  '```',
  '',
  '| a | b |',
  '| - | - |',
  '| 1 | 2 |',
].join('\n');
