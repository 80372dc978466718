/**
 * Removes anything that looks like a credential from text that may be shown or logged.
 * Providers echo keys back in some error messages ("Incorrect API key provided: sk-..."),
 * and a proxy may echo a whole request.
 */

const patterns: [RegExp, string][] = [
  // Authorization header values: `Bearer <token>`, `Basic <token>`.
  [/\b(Bearer|Basic)\s+[^\s"',;}]+/gi, '$1 [redacted]'],
  // `x-api-key: ...`, `"api_key": "..."`, `apiKey=...`, `token=...`, `authorization: ...`.
  [
    /\b(x-api-key|x-goog-api-key|api[-_]?key|key|access[-_]?token|auth[-_]?token|token|authorization|secret)(["']?\s*[:=]\s*["']?)(?!\[redacted\]|Bearer\b|Basic\b)[^\s"',;&}]+/gi,
    '$1$2[redacted]',
  ],
  // Vendor key formats: OpenAI/Anthropic `sk-...` (`sk-ant-...`, `sk-proj-...`), Google `AIza...`.
  [/\b(sk|rk|pk)-[A-Za-z0-9_*-]{6,}/g, '[redacted-key]'],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, '[redacted-key]'],
];

/**
 * Replaces bearer tokens, API keys and `key=value` credentials in `text` by `[redacted]`.
 *
 * @example redactSecrets('Incorrect API key provided: sk-proj-abc123def') // 'Incorrect API key provided: [redacted-key]'
 */
export function redactSecrets(text: string): string {
  let result = text;
  for (const [pattern, replacement] of patterns) result = result.replace(pattern, replacement);
  return result;
}
