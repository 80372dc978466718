/** How the aria snapshot is shown to the model: refs where one acts, wrappers dropped, bounded. */
import { describe, expect, it } from 'vitest';
import { capText, compactSnapshot } from '../../src/browser/page-snapshot.ts';

const snapshot = [
  '- generic [active] [ref=e1]:',
  '  - heading "Services" [level=2] [ref=e2]',
  '  - table [ref=e3]:',
  '    - rowgroup [ref=e4]:',
  '      - row [ref=e5]:',
  '        - cell "api" [ref=e6]',
  '        - cell [ref=e7]:',
  '          - button "Restart" [ref=e8]',
  '  - generic [ref=e9] [cursor=pointer]: Open menu',
  '  - link "Docs" [ref=e10] [cursor=pointer]:',
  '    - /url: /docs',
  '  - group "Plan" [ref=e11]:',
  '    - radio "Team" [ref=e12]',
].join('\n');

describe('page snapshot', () => {
  it('keeps refs on what one acts on or what looks clickable, drops unnamed wrappers and their indent', () => {
    expect(compactSnapshot(snapshot)).toBe(
      [
        '- generic [active]:',
        '  - heading "Services" [level=2]',
        '  - table:',
        '    - row:',
        '      - cell "api"',
        '      - cell:',
        '        - button "Restart" [ref=e8]',
        '  - generic [ref=e9] [cursor=pointer]: Open menu',
        '  - link "Docs" [ref=e10]:',
        '    - /url: /docs',
        '  - group "Plan":',
        '    - radio "Team" [ref=e12]',
      ].join('\n'),
    );
  });

  it('cuts long text at a line end with a marker saying how much is left out', () => {
    const text = Array.from({ length: 100 }, (_, index) => `line ${index}`).join('\n');
    const cut = capText(text, 100, 'the list');
    expect(cut.length).toBeLessThan(200);
    expect(cut).toMatch(/line 1\d\n\[\.\.\. cut: \d+ more characters of the list; scroll, or act on what is shown \.\.\.\]$/);
    expect(capText('short', 100, 'x')).toBe('short');
  });
});
