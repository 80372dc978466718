/**
 * The web chat page's stylesheet (inlined; system fonts, no external assets). Light and dark
 * follow the browser's colour scheme; below 480 px (a phone) the margins shrink and the keyboard
 * hint goes, so the message box keeps room for its placeholder.
 */
export const pageStyle = String.raw`
:root {
  color-scheme: light dark;
  --background: #f4f5f7;
  --surface: #ffffff;
  --text: #1d2025;
  --muted: #6b7280;
  --border: #dde1e6;
  --accent: #2f6fde;
  --accent-text: #ffffff;
  --user: #2f6fde;
  --user-text: #ffffff;
  --code: #eef0f3;
  --danger: #c2410c;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root {
    --background: #15171b;
    --surface: #1f2228;
    --text: #e6e8eb;
    --muted: #9aa1ab;
    --border: #30343c;
    --accent: #5b8ff0;
    --user: #3a6fd1;
    --code: #2a2e35;
    --danger: #fb923c;
  }
}
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; background: var(--background); color: var(--text); }
header { display: flex; align-items: center; justify-content: space-between; padding: 10px 18px; background: var(--surface); border-bottom: 1px solid var(--border); }
header h1 { margin: 0; font-size: 17px; font-weight: 600; letter-spacing: 0.2px; }
.header-end { display: flex; align-items: center; gap: 14px; }
.logout { padding: 3px 10px; border-radius: 8px; border: 1px solid var(--border); background: transparent; color: var(--muted); font: inherit; font-size: 12px; cursor: pointer; }
.logout:hover { color: var(--text); border-color: var(--muted); }
.status { font-size: 12px; color: var(--muted); display: flex; align-items: center; gap: 6px; }
.status::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: var(--muted); }
.status[data-state="connected"]::before { background: #16a34a; }
.status[data-state="offline"]::before { background: var(--danger); }
.log { flex: 1; overflow-y: auto; padding: 18px 18px 8px; display: flex; flex-direction: column; gap: 10px; }
.empty { margin: auto; color: var(--muted); text-align: center; }
.message { max-width: min(760px, 86%); padding: 9px 14px; border-radius: 16px; overflow-wrap: anywhere; }
.message.user { align-self: flex-end; background: var(--user); color: var(--user-text); border-bottom-right-radius: 4px; }
.message.user .body { white-space: pre-wrap; }
.message.user.pending { opacity: 0.7; }
.message.user.failed { outline: 2px solid var(--danger); }
.message.bot { align-self: flex-start; background: var(--surface); border: 1px solid var(--border); border-bottom-left-radius: 4px; }
.message .body > :first-child { margin-top: 0; }
.message .body > :last-child { margin-bottom: 0; }
.message p, .message ul, .message ol, .message pre, .message blockquote { margin: 0 0 8px; }
.message ul, .message ol { padding-left: 22px; }
.message li.nested { margin-left: 18px; }
.message h1, .message h2, .message h3, .message h4, .message h5, .message h6 { margin: 4px 0 6px; font-size: 1.05em; }
.message h1 { font-size: 1.25em; }
.message h2 { font-size: 1.15em; }
.message code { font: 0.92em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: 1px 4px; border-radius: 4px; }
.message pre { background: var(--code); padding: 10px 12px; border-radius: 8px; overflow-x: auto; }
.message pre code { padding: 0; background: none; white-space: pre; }
.message blockquote { border-left: 3px solid var(--border); padding-left: 10px; color: var(--muted); }
.message hr { border: 0; border-top: 1px solid var(--border); }
.message a { color: var(--accent); }
.message.user a { color: inherit; }
.message .table { max-width: 100%; overflow-x: auto; margin: 0 0 8px; }
.message table { border-collapse: collapse; overflow-wrap: normal; font-size: 0.95em; }
.message th, .message td { border: 1px solid var(--border); padding: 4px 9px; text-align: left; vertical-align: top; }
.message th { background: var(--code); font-weight: 600; }
.message th.align-center, .message td.align-center { text-align: center; }
.message th.align-right, .message td.align-right { text-align: right; }
.message.approval { border-color: var(--accent); }
.message .approval-title { font-weight: 600; }
.message .approval-reason { color: var(--muted); font-size: 13px; }
.approval-args { margin: 0; }
.approval-args dt { font-size: 12px; color: var(--muted); }
.approval-args dt:empty { display: none; }
.approval-args dd { margin: 0 0 6px; }
.approval-args pre { margin: 2px 0 0; }
.message .approval-args pre code { white-space: pre-wrap; overflow-wrap: anywhere; }
.message .approval-more { color: var(--muted); font-size: 13px; }
.message.file .preview { display: block; max-width: 100%; max-height: 320px; margin-bottom: 6px; border-radius: 8px; }
.message.file .size { margin-left: 8px; font-size: 12px; color: var(--muted); }
.buttons { margin-top: 8px; display: flex; flex-direction: column; gap: 6px; }
.buttons .row { display: flex; gap: 6px; flex-wrap: wrap; }
.buttons button { flex: 1; padding: 6px 12px; border-radius: 8px; border: 1px solid var(--accent); background: transparent; color: var(--accent); font: inherit; cursor: pointer; }
.buttons button:hover:not(:disabled) { background: var(--accent); color: var(--accent-text); }
.buttons button:disabled { opacity: 0.55; cursor: default; }
.buttons button.pressed { background: var(--accent); color: var(--accent-text); opacity: 1; }
.notice { align-self: center; font-size: 12px; color: var(--muted); }
.typing { padding: 0 18px 6px; font-size: 13px; color: var(--muted); display: flex; align-items: center; gap: 8px; }
.typing[hidden] { display: none; }
.dots { display: inline-flex; gap: 3px; }
.dots i { width: 6px; height: 6px; border-radius: 50%; background: var(--muted); animation: blink 1.2s infinite ease-in-out; }
.dots i:nth-child(2) { animation-delay: 0.2s; }
.dots i:nth-child(3) { animation-delay: 0.4s; }
@keyframes blink { 0%, 80%, 100% { opacity: 0.25; } 40% { opacity: 1; } }
.composer { display: flex; flex-wrap: wrap; gap: 8px; padding: 10px 18px 14px; background: var(--surface); border-top: 1px solid var(--border); }
.composer textarea { flex: 1; min-width: 0; resize: none; min-height: 40px; max-height: 200px; padding: 9px 12px; border-radius: 10px; border: 1px solid var(--border); background: var(--background); color: var(--text); font: inherit; }
.composer textarea:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
.composer button { padding: 0 18px; border: 0; border-radius: 10px; background: var(--accent); color: var(--accent-text); font: inherit; font-weight: 600; cursor: pointer; }
.composer button.stop { border: 1px solid var(--danger); background: transparent; color: var(--danger); }
.composer button.stop:disabled { opacity: 0.55; cursor: default; }
.composer button[hidden] { display: none; }
.hint { flex-basis: 100%; margin: -2px 0 0; font-size: 11px; color: var(--muted); }
@media (max-width: 480px) {
  header { padding: 8px 12px; }
  .log { padding: 12px 10px 6px; }
  .typing { padding: 0 10px 6px; }
  .composer { gap: 6px; padding: 8px 10px 10px; }
  /* 16 px: phones zoom into a smaller text field when it gets the focus. */
  .composer textarea { font-size: 16px; padding: 8px 10px; }
  .composer button { padding: 0 14px; }
  .hint { display: none; }
}
`;
