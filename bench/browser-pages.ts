/**
 * The pages the browser benchmarks use, served on 127.0.0.1: a typical dashboard (a header,
 * navigation, a table of 25 services with actions, a form), like the status pages and admin
 * screens teams ask the bot about.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const services = Array.from({ length: 25 }, (_, index) => ({
  name: `service-${String(index + 1).padStart(2, '0')}`,
  status: index % 7 === 3 ? 'degraded' : 'operational',
  latency: 40 + ((index * 37) % 200),
}));

/** A dashboard page of typical size (about 300 elements). */
export const dashboard = `<!doctype html><html><head><title>Platform status</title>
<style>body{font-family:sans-serif;margin:0}header,nav,main{padding:12px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px}</style>
</head><body>
<header><h1>Platform status</h1><p>Updated a minute ago. <a href="/history">History</a> · <a href="/subscribe">Subscribe</a></p></header>
<nav><ul>${['Overview', 'Incidents', 'Maintenance', 'Metrics', 'Settings'].map((item) => `<li><a href="/${item.toLowerCase()}">${item}</a></li>`).join('')}</ul></nav>
<main>
<h2>Services</h2>
<table><thead><tr><th>Service</th><th>Status</th><th>p95 latency</th><th>Actions</th></tr></thead><tbody>
${services.map((service) => `<tr><td>${service.name}</td><td>${service.status}</td><td>${service.latency} ms</td><td><button>Details</button> <button>Restart</button></td></tr>`).join('\n')}
</tbody></table>
<h2>Report an issue</h2>
<form><label>Service <select>${services.map((service) => `<option>${service.name}</option>`).join('')}</select></label>
<label>Summary <input name="summary"></label><label>Details <textarea name="details"></textarea></label><button type="submit">Send report</button></form>
</main></body></html>`;

/** Serves `dashboard` at every path; `floor()` is a bare request's round trip. */
export async function startBenchPages(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(dashboard);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
