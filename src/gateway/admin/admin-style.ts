/**
 * The admin console's stylesheet (inlined; system fonts, no external assets), in the web chat's
 * colours (light and dark follow the browser). Narrow screens get one column, a scrolling tab bar
 * and tables that scroll sideways, so the console works on a phone.
 */
import { pageStyle } from '../../channels/web/index.ts';

/** The console's and its login page's CSS. */
export const adminStyle = `${pageStyle}
body { overflow: hidden; }
.tabs { display: flex; gap: 4px; overflow-x: auto; padding: 6px 12px; background: var(--surface); border-bottom: 1px solid var(--border); scrollbar-width: thin; }
.tabs a { flex: none; padding: 6px 12px; border-radius: 8px; color: var(--muted); text-decoration: none; font-size: 14px; white-space: nowrap; }
.tabs a[aria-current="page"] { background: var(--background); color: var(--text); font-weight: 600; }
.view { flex: 1; overflow-y: auto; padding: 14px 18px 40px; }
.view h2 { margin: 4px 0 12px; font-size: 18px; }
.view h3 { margin: 18px 0 8px; font-size: 15px; }
.muted { color: var(--muted); font-size: 13px; }
.error { color: var(--danger); }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-bottom: 10px; }
.toolbar input, .toolbar select { padding: 7px 10px; border-radius: 8px; border: 1px solid var(--border); background: var(--surface); color: var(--text); font: inherit; min-width: 0; }
.toolbar input[type="search"] { flex: 1 1 220px; }
.scroll { overflow-x: auto; border: 1px solid var(--border); border-radius: 10px; background: var(--surface); }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--border); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; white-space: nowrap; }
tr:last-child td { border-bottom: 0; }
td.number, th.number { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td a { color: var(--accent); text-decoration: none; }
button.action { padding: 6px 12px; min-height: 34px; border: 1px solid var(--border); border-radius: 8px; background: var(--surface); color: var(--text); font: inherit; font-size: 13px; cursor: pointer; margin: 2px 4px 2px 0; }
button.action.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); }
button.action.danger { color: var(--danger); }
button.action:disabled { opacity: 0.5; cursor: default; }
.notice { margin: 8px 0; padding: 8px 12px; border-radius: 8px; background: var(--surface); border: 1px solid var(--border); white-space: pre-wrap; font-size: 14px; }
.notice.failed { border-color: var(--danger); color: var(--danger); }
.card { background: var(--surface); border: 1px solid var(--border); border-radius: 12px; padding: 12px 14px; margin-bottom: 12px; }
.card h3 { margin-top: 0; }
pre { white-space: pre-wrap; word-break: break-word; font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: 8px 10px; border-radius: 8px; margin: 6px 0; max-height: 420px; overflow: auto; }
.problems li { margin: 4px 0; }
.problems code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: 1px 4px; border-radius: 4px; }
.state { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; background: var(--code); }
.state.paused, .state.error, .state.failed { color: var(--danger); }
.transcript { display: flex; flex-direction: column; gap: 8px; }
.turn { max-width: 900px; padding: 8px 12px; border-radius: 12px; border: 1px solid var(--border); background: var(--surface); }
.turn.user { background: var(--user); color: var(--user-text); border-color: var(--user); align-self: flex-end; }
.turn.compaction, .turn.model { background: var(--code); font-size: 13px; }
.turn .text { white-space: pre-wrap; word-break: break-word; }
.turn .meta { font-size: 11px; opacity: 0.75; margin-top: 4px; }
details { margin: 6px 0; }
details summary { cursor: pointer; font-size: 13px; color: var(--muted); }
.bar { height: 8px; border-radius: 4px; background: var(--accent); min-width: 2px; }
#memory-entries li { margin: 4px 0; }
.tool-choice { display: inline-block; margin: 4px 10px 4px 0; font-size: 14px; }
#memory-entries li.held > span { font-style: italic; }
.diff { margin: 8px 0; }
.diff-head { font-size: 12px; color: var(--muted); }
.diff pre { margin: 2px 0; max-height: none; }
pre.diff-del { color: var(--danger); }
pre.diff-add { color: var(--accent); }
.chart { margin: 8px 0 16px; max-width: 820px; }
.chart svg { width: 100%; height: auto; display: block; }
.chart figcaption { font-size: 13px; color: var(--muted); }
.chart .grid { stroke: var(--border); stroke-width: 1; }
.chart .axis { fill: var(--muted); font-size: 11px; }
.chart rect.series-turns, .legend.series-turns::before { fill: var(--accent); background: var(--accent); }
.chart rect.series-reviews, .legend.series-reviews::before { fill: #d97706; background: #d97706; }
.legend::before { content: ""; display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 4px 0 10px; }
.events { list-style: none; margin: 0; padding: 0; font-size: 13px; }
.events li { padding: 5px 0; border-bottom: 1px solid var(--border); display: flex; gap: 10px; flex-wrap: wrap; }
.events time { color: var(--muted); font-variant-numeric: tabular-nums; }
.events .type { font-weight: 600; }
.events .warn, .events .error { color: var(--danger); }
.login { flex: 1; display: flex; align-items: center; justify-content: center; padding: 18px; overflow-y: auto; }
.login form { width: min(400px, 100%); background: var(--surface); border: 1px solid var(--border); border-radius: 16px; padding: 22px; display: flex; flex-direction: column; gap: 12px; }
.login h2 { margin: 0; font-size: 17px; }
.login p { margin: 0; color: var(--muted); font-size: 14px; }
.login code { font: 0.92em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: 1px 4px; border-radius: 4px; }
.login label { font-size: 13px; font-weight: 600; }
.login input { padding: 9px 12px; border-radius: 10px; border: 1px solid var(--border); background: var(--background); color: var(--text); font: inherit; }
.login button { padding: 9px 18px; border: 0; border-radius: 10px; background: var(--accent); color: var(--accent-text); font: inherit; font-weight: 600; cursor: pointer; }
@media (max-width: 640px) {
  header { padding: 8px 12px; }
  .view { padding: 10px 10px 40px; }
  th, td { padding: 6px 7px; }
  .hide-narrow { display: none; }
}
`;
